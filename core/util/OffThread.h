#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrent/QtConcurrentRun>

#include <type_traits>
#include <utility>

class QThreadPool;

namespace sb {

// The pool that runOffThread() uses. When the application is about to quit, work not yet
// started is dropped and the quit waits for what runs, so no worker outlives the app.
QThreadPool &offThreadPool();

// runOffThread() below on a pool of the caller's: work that may block long (a remote server's
// answer) kept from holding up everyone else's.
template <typename Work, typename Then>
void runOffThread(QThreadPool *pool, QObject *context, Work &&work, Then &&then) {
    using Value = std::invoke_result_t<std::decay_t<Work>>;
    auto *watcher = new QFutureWatcher<Value>(context);
    QObject::connect(watcher, &QFutureWatcherBase::finished, context,
                     [watcher, then = std::forward<Then>(then)]() mutable {
                         watcher->deleteLater();
                         QFuture<Value> future = watcher->future();
                         if (future.resultCount() > 0) // none when dropped at quit
                             then(future.takeResult());
                     });
    watcher->setFuture(QtConcurrent::run(pool, std::forward<Work>(work)));
}

// The one way to do work that would block the calling thread (packing code, an object store's
// HTTP calls, decoding a large body, reading a logdir): `work()` runs on offThreadPool(), then
// `then(result)` on `context`'s thread, and not at all if `context` is gone by then (the watcher
// is its child, so it goes with it). Call it on `context`'s thread. `work` must not touch
// `context` or anything it owns: it runs on another thread. (A loop that lives as long as its
// owner, such as a node's SSH session or libcurl's multi handle, is a QThread its owner holds.)
template <typename Work, typename Then>
void runOffThread(QObject *context, Work &&work, Then &&then) {
    runOffThread(&offThreadPool(), context, std::forward<Work>(work), std::forward<Then>(then));
}

} // namespace sb
