// libFuzzer target: what Signalbox reads from a Slurm cluster on arbitrary bytes: the poll's
// squeue/sacct/log output, sinfo and sshare, slurmrestd's JSON answers and raw HTTP replies (as
// they come through an SSH channel), and a batch script read into a REST job description. A bad
// input may only produce an error value: no crash, no sanitizer report, no hang.
#include "jobs/slurm/SlurmCommands.h"
#include "jobs/slurm/SlurmRest.h"
#include "net/HttpReply.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const QByteArray input(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    // The seeds' key (tests/fuzz/corpus/slurm/poll*.txt), as a poll's answer carries it.
    const sb::SlurmPoll poll = sb::parseSlurmPoll(input, "0123456789abcdef0123456789abcdef");
    for (const sb::SlurmJobRow &row : poll.queue + poll.accounting) {
        (void)sb::slurmArrayTasks(row.jobId);
        (void)sb::slurmMessage(row);
    }
    (void)sb::parseSlurmClusterState(input).summary();
    (void)sb::parseSlurmJobGpus(input);
    (void)sb::expandSlurmHostlist(QString::fromUtf8(input.left(4096)));
    const QDateTime now = QDateTime::fromSecsSinceEpoch(1795487000);
    if (const auto rows = sb::parseSlurmRestJobs(input, {}, now)) {
        for (const sb::SlurmJobRow &row : *rows)
            (void)sb::slurmArrayTasks(row.jobId);
    }
    (void)sb::parseSlurmRestAccounting(input);
    (void)sb::slurmRestErrors(input);
    (void)sb::parseHttpReply(input, false);
    (void)sb::parseHttpReply(input, true);
    for (const char *version : {"v0.0.38", "v0.0.41"})
        (void)sb::slurmRestSubmitBody(QString::fromUtf8(input), {}, QString::fromLatin1(version));
    return 0;
}
