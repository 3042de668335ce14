#pragma once

#include "LogdirFollower.h"

namespace sb {

class SshSession;

// A logdir on an SSH node, listed and read over SFTP by offset (use it on the node's thread).
class SftpLogdir final : public LogdirSource {
public:
    SftpLogdir(SshSession &session, QString root);
    Result<std::vector<File>> eventFiles() override;
    Result<QByteArray> read(const QString &path, qint64 offset, qint64 size) override;

private:
    SshSession &m_session;
    QString m_root;
};

} // namespace sb
