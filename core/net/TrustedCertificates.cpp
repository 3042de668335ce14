#include "TrustedCertificates.h"

#include <QFile>
#include <QSslCertificate>
#include <QSslConfiguration>

namespace sb {

using namespace Qt::StringLiterals;

Status trustCertificatesFromEnvironment() {
    const QString path = qEnvironmentVariable("SIGNALBOX_CA_FILE");
    if (path.isEmpty())
        return success();
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(u"SIGNALBOX_CA_FILE: cannot read %1: %2"_s.arg(path, file.errorString()),
                    ErrorCode::InvalidInput);
    const QList<QSslCertificate> certificates = QSslCertificate::fromData(file.readAll());
    if (certificates.isEmpty())
        return fail(u"SIGNALBOX_CA_FILE: %1 holds no PEM certificate"_s.arg(path),
                    ErrorCode::InvalidInput);
    QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
    // Added to the system's, read now: adding certificates ends Qt's loading them on demand.
    configuration.setCaCertificates(QSslConfiguration::systemCaCertificates() + certificates);
    QSslConfiguration::setDefaultConfiguration(configuration);
    return success();
}

} // namespace sb
