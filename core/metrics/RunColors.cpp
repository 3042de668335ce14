#include "RunColors.h"

#include "util/Files.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

constexpr qint64 kMaxFileBytes = 16 << 20;

bool isColor(const QString &color) {
    static const QRegularExpression hex(u"^#[0-9a-f]{6}$"_s);
    return hex.match(color).hasMatch();
}

} // namespace

const QStringList &RunColors::palette() {
    // Tol's "bright" (blue, red, green, yellow, cyan, purple), then "muted" without the two that
    // sit closest to a bright one: twelve colours a colour-blind reader tells apart in pairs.
    static const QStringList colors{u"#4477aa"_s, u"#ee6677"_s, u"#228833"_s, u"#ccbb44"_s,
                                    u"#66ccee"_s, u"#aa3377"_s, u"#332288"_s, u"#44aa99"_s,
                                    u"#999933"_s, u"#882255"_s, u"#ddcc77"_s, u"#bbbbbb"_s};
    return colors;
}

RunColors &RunColors::shared() {
    static RunColors colors;
    return colors;
}

RunColors::RunColors() {
    m_save.setSingleShot(true);
    m_save.setInterval(1000);
    connect(&m_save, &QTimer::timeout, this, [this] { (void)flush(); });
    m_announce.setSingleShot(true);
    m_announce.setInterval(0);
    connect(&m_announce, &QTimer::timeout, this, &RunColors::handedOut);
}

Status RunColors::load(const QString &path) {
    m_path = path;
    m_colors.clear();
    m_uses.clear();
    if (!QFile::exists(path))
        return success();
    const auto bytes = readRegularFile(path, kMaxFileBytes);
    if (!bytes) // not a file of ours (a directory, a FIFO, too big): left as it is
        return fail(u"the runs' colours were not read: %1"_s.arg(bytes.error()));
    const QJsonDocument document = QJsonDocument::fromJson(*bytes);
    if (!document.isObject()) {
        const QString aside = path + u".broken"_s;
        QFile::remove(aside);
        QFile::rename(path, aside);
        return fail(u"the runs' colours in %1 were not readable (kept as %2); runs get colours "
                    "anew"_s.arg(path, aside));
    }
    const QJsonObject colors = document.object();
    for (auto it = colors.begin(); it != colors.end(); ++it) {
        const QString color = it.value().toString().toLower();
        if (!isColor(color))
            continue; // one bad entry loses that run's colour only
        m_colors.insert(it.key(), color);
        ++m_uses[color];
    }
    return success();
}

QString RunColors::colorOf(const QString &run) {
    if (const auto it = m_colors.constFind(run); it != m_colors.cend())
        return *it;
    const QStringList &colors = palette();
    QString chosen = colors.front();
    for (const QString &color : colors) { // the least used; on a tie, the earliest
        if (m_uses.value(color) < m_uses.value(chosen))
            chosen = color;
    }
    m_colors.insert(run, chosen);
    ++m_uses[chosen];
    saveSoon();
    if (!m_announce.isActive())
        m_announce.start();
    return chosen;
}

std::optional<QString> RunColors::existing(const QString &run) const {
    const auto it = m_colors.constFind(run);
    return it == m_colors.cend() ? std::nullopt : std::optional<QString>(*it);
}

Status RunColors::setColor(const QString &run, const QString &color) {
    const QString lower = color.toLower();
    if (!isColor(lower))
        return fail(u"\"%1\" is not a colour (#rrggbb)"_s.arg(color), ErrorCode::InvalidInput);
    if (const auto it = m_colors.constFind(run); it != m_colors.cend())
        --m_uses[*it];
    m_colors.insert(run, lower);
    ++m_uses[lower];
    Q_EMIT changed(run);
    return flush();
}

void RunColors::saveSoon() {
    if (!m_path.isEmpty() && !m_save.isActive())
        m_save.start();
}

Status RunColors::flush() {
    m_save.stop();
    if (m_path.isEmpty())
        return success();
    QJsonObject colors;
    for (auto it = m_colors.cbegin(); it != m_colors.cend(); ++it)
        colors.insert(it.key(), *it);
    return writeFileAtomically(m_path, QJsonDocument(colors).toJson(QJsonDocument::Compact));
}

} // namespace sb
