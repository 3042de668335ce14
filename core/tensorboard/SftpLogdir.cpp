#include "SftpLogdir.h"

#include "ssh/SshSession.h"

namespace sb {

using namespace Qt::StringLiterals;

SftpLogdir::SftpLogdir(SshSession &session, QString root)
    : m_session(session)
    , m_root(std::move(root)) {
    // SFTP paths without a leading slash start at the home directory, as "~/" means.
    if (m_root.startsWith(u"~/"_s))
        m_root = m_root.mid(2);
    else if (m_root == u"~"_s)
        m_root = u"."_s;
    while (m_root.size() > 1 && m_root.endsWith(u'/'))
        m_root.chop(1);
}

Result<std::vector<LogdirSource::File>> SftpLogdir::eventFiles() {
    return m_session.findFiles(m_root, isEventFileName);
}

Result<QByteArray> SftpLogdir::read(const QString &path, qint64 offset, qint64 size) {
    return m_session.readFile(m_root + u'/' + path, offset, size);
}

} // namespace sb
