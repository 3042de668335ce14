#include "OffThread.h"

#include <QCoreApplication>
#include <QThreadPool>

namespace sb {

QThreadPool &offThreadPool() {
    static QThreadPool *pool = [] {
        QCoreApplication *app = QCoreApplication::instance();
        auto *created = new QThreadPool;
        if (app) { // deleted, after waiting, with the application, whichever thread asks first
            created->moveToThread(app->thread());
            created->setParent(app);
            QObject::connect(app, &QCoreApplication::aboutToQuit, created, [created] {
                created->clear();
                created->waitForDone();
            });
        }
        return created;
    }();
    return *pool;
}

} // namespace sb
