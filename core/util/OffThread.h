#pragma once

#include <QFuture>
#include <QObject>
#include <QtConcurrent/QtConcurrentRun>

#include <utility>

class QThreadPool;

namespace sb {

// The pool that runOffThread() uses. When the application is about to quit, work not yet
// started is dropped and the quit waits for what runs, so no worker outlives the app.
QThreadPool &offThreadPool();

// The one way to do work that would block the calling thread (packing code, an object store's
// HTTP calls, decoding a large body, reading a logdir): `work()` runs on offThreadPool(), then
// `then(result)` on `context`'s thread, and not at all if `context` is gone by then. `work` must
// not touch `context` or anything it owns: it runs on another thread. (A loop that lives as long
// as its owner, such as a node's SSH session or libcurl's multi handle, is a QThread its owner
// holds instead.)
template <typename Work, typename Then>
void runOffThread(QObject *context, Work &&work, Then &&then) {
    QtConcurrent::run(&offThreadPool(), std::forward<Work>(work))
        .then(context, std::forward<Then>(then));
}

} // namespace sb
