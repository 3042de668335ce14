// The project archive delivered into cluster pods: GNU tar unpacks it to the project tree
// (honouring .gitignore, executable bits, long paths, symlinks), and it is reproducible, so the
// same tree has the same hash.
#include "code/CodeArchive.h"
#include "code/ZipArchive.h"
#include "jobs/PythonClient.h"
#include "jobs/kubernetes/KubeJobs.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

void write(const QString &path, const QByteArray &content) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(content);
}

QByteArray read(const QString &path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("(missing)");
}

} // namespace

class TestCodeArchive : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void tarUnpacksTheProjectTree();
    void sameTreeSameHash();
    void refusesTooMuchCode();
    void podsImportTheClient();
    void storedZipIsAZipPythonReads();
};

void TestCodeArchive::tarUnpacksTheProjectTree() {
    QTemporaryDir project;
    const QString p = project.path();
    write(p + u"/train.py"_s, "print('hello')\n");
    write(p + u"/run.sh"_s, "#!/bin/sh\nexec python3 train.py \"$@\"\n");
    QFile::setPermissions(p + u"/run.sh"_s, QFile::permissions(p + u"/run.sh"_s) | QFile::ExeOwner |
                                                QFile::ExeGroup | QFile::ExeOther);
    const QString deep =
        u"models/very/long/package/path/for/the/tar/header/which/holds/only/a/hundred/"
        "bytes/in/its/name/field/model.py"_s;
    write(p + u'/' + deep, "class Model: pass\n");
    write(p + u"/.gitignore"_s, "*.ckpt\ndata/\n");
    write(p + u"/best.ckpt"_s, QByteArray(4096, 'x'));
    write(p + u"/data/train.bin"_s, QByteArray(4096, 'y'));
    write(p + u"/empty.txt"_s, "");
    write(p + u"/block.bin"_s, QByteArray(512, 'z')); // exactly one tar block
    QVERIFY(QFile::link(u"train.py"_s, p + u"/main.py"_s));

    const auto archive = sb::packCode(p, 50'000'000);
    QVERIFY2(archive, qPrintable(archive.error()));
    QCOMPARE(archive->files, 6);
    QTemporaryDir out;
    write(out.filePath(u"code.tar.gz"_s), archive->gzip);
    QProcess tar;
    tar.start(u"tar"_s, {u"-xzf"_s, out.filePath(u"code.tar.gz"_s), u"-C"_s, out.path()});
    QVERIFY(tar.waitForFinished());
    QVERIFY2(tar.exitCode() == 0, tar.readAllStandardError().constData());
    const QString o = out.path();
    QCOMPARE(read(o + u"/train.py"_s), QByteArray("print('hello')\n"));
    QCOMPARE(read(o + u'/' + deep), QByteArray("class Model: pass\n"));
    QCOMPARE(read(o + u"/empty.txt"_s), QByteArray());
    QCOMPARE(read(o + u"/block.bin"_s), QByteArray(512, 'z'));
    QVERIFY(QFileInfo(o + u"/run.sh"_s).isExecutable());
    QVERIFY(!QFileInfo(o + u"/train.py"_s).isExecutable());
    QCOMPARE(QFileInfo(o + u"/main.py"_s).symLinkTarget(), o + u"/train.py"_s);
    QCOMPARE(read(o + u"/main.py"_s), QByteArray("print('hello')\n"));
    QVERIFY(!QFile::exists(o + u"/best.ckpt"_s)); // ignored
    QVERIFY(!QFile::exists(o + u"/data"_s));
}

void TestCodeArchive::sameTreeSameHash() {
    QTemporaryDir project;
    write(project.filePath(u"a.py"_s), "a = 1\n");
    write(project.filePath(u"pkg/b.py"_s), "b = 2\n");
    const auto first = sb::packCode(project.path(), 1000);
    QTest::qSleep(1100); // a later modification time must not matter
    write(project.filePath(u"a.py"_s), "a = 1\n");
    const auto again = sb::packCode(project.path(), 1000);
    QVERIFY(first && again);
    QCOMPARE(again->hash, first->hash);
    QCOMPARE(again->gzip, first->gzip);
    QCOMPARE(first->hash.size(), 64);
    write(project.filePath(u"a.py"_s), "a = 2\n");
    QVERIFY(sb::packCode(project.path(), 1000)->hash != first->hash);
}

void TestCodeArchive::refusesTooMuchCode() {
    QTemporaryDir project;
    write(project.filePath(u"weights.py"_s), QByteArray(2000, 'w'));
    const auto archive = sb::packCode(project.path(), 1000);
    QVERIFY(!archive);
    QVERIFY2(archive.error().contains(u"holds more than 1"_s) &&
                 archive.error().contains(u"000 bytes of code"_s),
             qPrintable(archive.error()));
}

// Issue 29, finding 6: a Job mounts the client's ConfigMap, and its command, run as its pods run
// it (here, with the mount's directory), imports the client ahead of the image's PYTHONPATH.
void TestCodeArchive::podsImportTheClient() {
    const auto &client = sb::pythonClient();
    QVERIFY(client);
    const QJsonObject job = sb::withPythonClientMounted(
        sb::jobManifest({.name = u"t"_s,
                         .command = {u"python3"_s, u"-c"_s,
                                     u"import os, signalbox.tensorboard, signalbox.integrations; "
                                     "print(os.environ['PYTHONPATH'])"_s},
                         .backend = u"kubernetes"_s},
                        u"t"_s, u"ns"_s),
        sb::clientConfigMapName(client->version));
    const QJsonObject pod = job[u"spec"_s][u"template"_s][u"spec"_s].toObject();
    QCOMPARE(pod[u"volumes"_s][0][u"configMap"_s][u"name"_s].toString(),
             u"signalbox-client-"_s + client->version);
    const QJsonObject container = pod[u"containers"_s][0].toObject();
    QCOMPARE(container[u"volumeMounts"_s][0][u"mountPath"_s].toString(),
             QString::fromLatin1(sb::kClientDirectory));
    // The mount holds what the ConfigMap holds.
    QTemporaryDir mount;
    const QJsonObject configMap =
        sb::clientConfigMap(sb::clientConfigMapName(client->version), u"ns"_s, client->archive);
    write(mount.filePath(u"signalbox.zip"_s),
          QByteArray::fromBase64(
              configMap[u"binaryData"_s][u"signalbox.zip"_s].toString().toLatin1()));
    QStringList command;
    for (const QJsonValue word : container[u"command"_s].toArray())
        command << word.toString();
    command[3] = mount.path(); // where the pod mounts it
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"PYTHONPATH"_s, u"/image/site"_s);
    process.setProcessEnvironment(env);
    process.start(command.takeFirst(), command);
    QVERIFY(process.waitForFinished(30000));
    QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
    QCOMPARE(process.readAllStandardOutput().trimmed(),
             (mount.path() + u"/signalbox.zip:/image/site"_s).toUtf8());
}

// The client's archive: Python's own zipfile reads it back whole, CRCs checked, UTF-8 names and
// all, and the same files give the same bytes.
void TestCodeArchive::storedZipIsAZipPythonReads() {
    const std::vector<std::pair<QString, QByteArray>> files{
        {u"pkg/__init__.py"_s, "x = 1\n"},
        {u"pkg/d\u00e9j\u00e0.txt"_s, "h\xc3\xa9llo"},
        {u"empty"_s, {}}};
    const QByteArray zip = sb::storedZip(files);
    QCOMPARE(sb::storedZip(files), zip);
    QTemporaryDir dir;
    write(dir.filePath(u"a.zip"_s), zip);
    QProcess python;
    python.start(u"python3"_s,
                 {u"-c"_s,
                  u"import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\n"
                  "print(ascii((z.testzip(), [(i.filename, z.read(i).decode()) for i in "
                  "z.infolist()])))"_s,
                  dir.filePath(u"a.zip"_s)});
    QVERIFY(python.waitForFinished(30000));
    QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
    QCOMPARE(QString::fromUtf8(python.readAllStandardOutput().trimmed()),
             u"(None, [('pkg/__init__.py', 'x = 1\\n'), ('pkg/d\\xe9j\\xe0.txt', 'h\\xe9llo'), "
             "('empty', '')])"_s);
}

QTEST_GUILESS_MAIN(TestCodeArchive)
#include "tst_codearchive.moc"
