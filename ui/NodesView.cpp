#include "NodesView.h"

#include "Keychain.h"
#include "OutsideText.h"
#include "Theme.h"

#include "FleetTable.h"
#include "NodeCard.h"
#include "NodeHistory.h"
#include "Remembered.h"
#include "fleet/ClusterGpuWatch.h"
#include "ssh/SshSession.h"
#include "util/Files.h"
#include "util/OffThread.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace sb {

using namespace Qt::StringLiterals;
using State = NodeStatus::State;

namespace {

// Add or edit one node; never asks for a password (keys and the agent only).
// Tries a node's settings as the monitor would connect (host key checked against
// `knownHostsFile`, agent or key), off the GUI thread, and says how it went in `result`.
void testConnection(const NodeConfig &node, const QString &knownHostsFile, QLabel *result) {
    result->setText(QObject::tr("Connecting to %1…").arg(node.host));
    SshTarget target{.host = node.host,
                     .port = node.port,
                     .user = node.user,
                     .identityFile = node.identityFile,
                     .proxyJump = node.proxyJump,
                     .knownHostsFile = knownHostsFile};
    runOffThread(
        result,
        [target] {
            SshFailure failure;
            auto session = SshSession::connect(target, {}, &failure);
            return session ? QObject::tr("Connected; host key %1.").arg(session->fingerprint())
                   : failure.kind == SshFailure::Kind::HostKeyUnknown
                       ? QObject::tr("Reached. Its host key %1 is not trusted yet: you "
                                     "will be asked when the node is added.")
                             .arg(failure.fingerprint)
                       : failure.message;
        },
        [result](const QString &said) { result->setText(said); });
}

std::optional<NodeConfig> nodeDialog(QWidget *parent, const NodeConfig &initial,
                                     const QStringList &takenNames, const QString &knownHostsFile) {
    QDialog dialog(parent);
    dialog.setWindowTitle(initial.name.isEmpty() ? QObject::tr("Add node")
                                                 : QObject::tr("Edit node"));
    auto *name = new QLineEdit(initial.name);
    auto *host = new QLineEdit(initial.host);
    auto *port = new QSpinBox;
    port->setRange(1, 65535);
    port->setValue(initial.port);
    auto *user = new QLineEdit(initial.user);
    for (auto [field, objectName] :
         {std::pair<QWidget *, const char *>{host, "host"}, {port, "port"}, {user, "user"}})
        field->setObjectName(QString::fromLatin1(objectName));
    auto *key = new QLineEdit(initial.identityFile);
    key->setObjectName(u"keyFile"_s);
    key->setPlaceholderText(QObject::tr("ssh-agent, then ~/.ssh/id_ed25519, id_ecdsa, id_rsa"));
    auto *browse = new QPushButton(QObject::tr("Browse…"));
    QObject::connect(browse, &QPushButton::clicked, &dialog, [&dialog, key] {
        const QString file = QFileDialog::getOpenFileName(
            &dialog, QObject::tr("Key file"),
            key->text().isEmpty() ? QDir::homePath() + u"/.ssh"_s : key->text());
        if (!file.isEmpty())
            key->setText(file);
    });
    auto *keyRow = new QHBoxLayout;
    keyRow->addWidget(key, 1);
    keyRow->addWidget(browse);
    auto *jump = new QLineEdit(initial.proxyJump);
    jump->setPlaceholderText(QObject::tr("[user@]bastion[:port]"));
    auto *interval = new QDoubleSpinBox;
    interval->setRange(0.2, 3600);
    interval->setSuffix(u" s"_s);
    interval->setValue(initial.intervalSeconds);
    auto *problem = plainLabel();
    problem->setStyleSheet(u"color:%1"_s.arg(problemColor(dialog.palette()).name()));
    auto *form = new QFormLayout(&dialog);
    form->addRow(QObject::tr("Name"), name);
    form->addRow(QObject::tr("Host"), host);
    form->addRow(QObject::tr("Port"), port);
    form->addRow(QObject::tr("User"), user);
    form->addRow(QObject::tr("Key file"), keyRow);
    form->addRow(QObject::tr("ProxyJump"), jump);
    form->addRow(QObject::tr("Sample every"), interval);
    form->addRow(problem);
    auto *tested = plainLabel();
    tested->setObjectName(u"tested"_s);
    tested->setWordWrap(true);
    form->addRow(tested);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    QPushButton *test =
        buttons->addButton(QObject::tr("Test connection"), QDialogButtonBox::ActionRole);
    test->setObjectName(u"testConnection"_s);
    form->addRow(buttons);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, [&] {
        const QString n =
            name->text().trimmed().isEmpty() ? host->text().trimmed() : name->text().trimmed();
        if (host->text().trimmed().isEmpty())
            problem->setText(QObject::tr("A node needs a host."));
        else if (takenNames.contains(n) && n != initial.name)
            problem->setText(QObject::tr("There is already a node named %1.").arg(n));
        else
            dialog.accept();
    });
    const auto read = [&] {
        NodeConfig node;
        node.host = host->text().trimmed();
        node.name = name->text().trimmed().isEmpty() ? node.host : name->text().trimmed();
        node.port = port->value();
        node.user = user->text().trimmed();
        node.identityFile = key->text().trimmed();
        node.proxyJump = jump->text().trimmed();
        node.intervalSeconds = interval->value();
        return node;
    };
    QObject::connect(test, &QPushButton::clicked, &dialog, [&] {
        if (host->text().trimmed().isEmpty())
            return tested->setText(QObject::tr("A node needs a host."));
        testConnection(read(), knownHostsFile, tested);
    });
    if (dialog.exec() != QDialog::Accepted)
        return std::nullopt;
    return read();
}

} // namespace

NodesView::NodesView(NodeMonitor *monitor, QString configPath, QWidget *parent)
    : QWidget(parent)
    , m_monitor(monitor)
    , m_configPath(std::move(configPath))
    , m_grid(new QWidget)
    , m_gridLayout(new QGridLayout(m_grid))
    , m_filter(new QLineEdit)
    , m_show(new QComboBox)
    , m_sort(new QComboBox)
    , m_layoutMode(new QComboBox)
    , m_fleetSummary(plainLabel())
    , m_pages(new QStackedWidget)
    , m_fleet(new FleetTable)
    , m_hint(new QLabel) {
    m_filter->setPlaceholderText(tr("Filter nodes, GPUs, users, commands…"));
    m_filter->setClearButtonEnabled(true);
    m_show->addItem(tr("All nodes"), u"all"_s);
    m_show->addItem(tr("Nodes with free GPUs"), u"free"_s);
    m_sort->addItem(tr("Sort by name"), u"name"_s);
    m_sort->addItem(tr("Most free GPUs first"), u"free"_s);
    m_sort->addItem(tr("Busiest GPUs first"), u"busy"_s);
    m_layoutMode->addItem(tr("Cards"), u"cards"_s);
    m_layoutMode->addItem(tr("Compact"), u"compact"_s);
    m_layoutMode->setObjectName(u"nodesLayout"_s);
    m_layoutMode->setToolTip(tr("A card per node, or a row per GPU for many nodes"));
    remember(m_layoutMode);
    m_fleetSummary->setObjectName(u"fleetSummary"_s);
    QFont summaryFont = m_fleetSummary->font();
    summaryFont.setBold(true);
    m_fleetSummary->setFont(summaryFont);
    auto *add = new QPushButton(tr("Add node…"));
    add->setObjectName(u"addNode"_s);
    auto *import = new QPushButton(tr("Import from ~/.ssh/config…"));
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_show);
    bar->addWidget(m_sort);
    bar->addWidget(m_layoutMode);
    bar->addWidget(add);
    bar->addWidget(import);

    m_hint->setObjectName(u"emptyState"_s);
    m_hint->setWordWrap(true);
    m_hint->setTextFormat(Qt::RichText);
    m_hint->setContentsMargins(8, 4, 8, 4);
    connect(m_hint, &QLabel::linkActivated, this, [this](const QString &link) {
        if (link == u"import"_s)
            importSshConfig();
        else
            editNode({});
    });
    auto *scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setWidget(m_grid);
    auto *compact = new QScrollArea;
    compact->setWidgetResizable(true);
    compact->setWidget(m_fleet);
    m_pages->addWidget(scroll);
    m_pages->addWidget(compact);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_fleetSummary);
    layout->addWidget(m_hint);
    layout->addWidget(m_pages);
    connect(m_fleet, &FleetTable::runActivated, this, &NodesView::runActivated);
    connect(m_fleet, &FleetTable::historyRequested, this, &NodesView::showHistory);

    m_relayout.setSingleShot(true);
    m_relayout.setInterval(500); // many nodes sampling: reorder at most twice a second
    connect(&m_relayout, &QTimer::timeout, this, &NodesView::relayout);
    connect(m_filter, &QLineEdit::textChanged, this, &NodesView::relayout);
    connect(m_show, &QComboBox::currentIndexChanged, this, &NodesView::relayout);
    connect(m_sort, &QComboBox::currentIndexChanged, this, &NodesView::relayout);
    connect(m_layoutMode, &QComboBox::currentIndexChanged, this, [this] {
        m_pages->setCurrentIndex(m_layoutMode->currentData() == u"compact"_s ? 1 : 0);
        relayout();
    });
    connect(add, &QPushButton::clicked, this, [this] { editNode({}); });
    connect(import, &QPushButton::clicked, this, &NodesView::importSshConfig);
    connect(m_monitor, &NodeMonitor::sampled, this, &NodesView::addSample);
    connect(m_monitor, &NodeMonitor::statusChanged, this, &NodesView::setStatus);
    connect(m_monitor, &NodeMonitor::nodesChanged, this, [this] {
        QStringList names{NodeMonitor::kLocalNode.toString()};
        for (const NodeConfig &node : m_monitor->nodes()) {
            names << node.name;
            card(node.name,
                 u"%1%2:%3"_s.arg(node.user.isEmpty() ? QString() : node.user + u'@', node.host)
                     .arg(node.port));
        }
        for (auto it = m_cards.begin(); it != m_cards.end();) {
            if (names.contains(it->first)) {
                ++it;
                continue;
            }
            m_shown.removeAll(it->second);
            it->second->deleteLater();
            m_insights.erase(it->first);
            it = m_cards.erase(it);
        }
        relayout();
    });
    card(NodeMonitor::kLocalNode.toString(), tr("this computer"));
    relayout();
}

void NodesView::setRunLookup(std::function<QHash<qint64, QString>(const QString &)> lookup) {
    m_runLookup = std::move(lookup);
}

NodeCard *NodesView::card(const QString &node, const QString &address) {
    if (const auto it = m_cards.find(node); it != m_cards.end())
        return it->second;
    auto *created = new NodeCard(node, address);
    connect(created, &NodeCard::actionRequested, this, &NodesView::act);
    connect(created, &NodeCard::editRequested, this, &NodesView::editNode);
    connect(created, &NodeCard::historyRequested, this, &NodesView::showHistory);
    connect(created, &NodeCard::removeRequested, this, [this](const QString &name) {
        QMessageBox ask(QMessageBox::Question, tr("Remove node"),
                        tr("Stop watching %1 and remove it from the config?").arg(name),
                        QMessageBox::Yes | QMessageBox::No, this);
        ask.setTextFormat(Qt::PlainText); // a node's name is the config's, not markup
        if (ask.exec() != QMessageBox::Yes)
            return;
        QList<NodeConfig> nodes = m_monitor->nodes();
        nodes.removeIf([&](const NodeConfig &n) { return n.name == name; });
        saveNodes(nodes);
    });
    m_cards[node] = created;
    relayout();
    return created;
}

void NodesView::setReservedGpusLookup(std::function<QHash<int, QString>(const QString &)> lookup) {
    m_reservedLookup = std::move(lookup);
}

void NodesView::addSample(const QString &node, const NodeSample &given) {
    NodeCard *target = card(node);
    NodeSample sample = given;
    if (m_reservedLookup)
        sample.reservedGpus = m_reservedLookup(node);
    const QHash<qint64, QString> runs = m_runLookup ? m_runLookup(node) : QHash<qint64, QString>();
    const auto insights = m_insights[node].update(sample, runs);
    target->addSample(sample, insights, runs);
    // Free GPUs and busy-ness change what is shown, in which order, and the fleet's counts. A
    // running timer is left to fire: fifty nodes' samples would otherwise keep restarting it.
    if (!m_relayout.isActive())
        m_relayout.start();
}

void NodesView::setStatus(const QString &node, const NodeStatus &status) {
    card(node)->setStatus(status);
    if (!m_relayout.isActive())
        m_relayout.start();
    // A key whose passphrase the user kept in the keychain: try it once, without asking.
    if (status.state == State::NeedsPassphrase && !m_keychainTried.contains(node)) {
        m_keychainTried.insert(node);
        keychain::read(keychain::sshKeyPassphrase(status.keyFile), this,
                       [this, node](const std::optional<QString> &passphrase) {
                           if (NodeConnection *connection = m_monitor->connection(node);
                               connection && passphrase)
                               connection->setPassphrase(*passphrase);
                       });
    }
}

void NodesView::act(const QString &node, State state) {
    NodeConnection *connection = m_monitor->connection(node);
    if (!connection)
        return;
    const NodeStatus &status = card(node)->status();
    switch (state) {
    case State::HostKeyUnknown: {
        QMessageBox box(QMessageBox::Question, tr("Unknown host key"),
                        tr("Signalbox has never connected to %1 (%2:%3).\n\nIts host key "
                           "fingerprint is\n%4\n\nCompare it with the one the node's administrator "
                           "gives you (ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub on the "
                           "node). Trust this key and connect?")
                            .arg(node, connection->node().host,
                                 QString::number(connection->node().port), status.fingerprint),
                        QMessageBox::Yes | QMessageBox::No, this);
        box.setTextFormat(Qt::PlainText);
        if (box.exec() == QMessageBox::Yes)
            connection->trustHostKey(status.fingerprint);
        break;
    }
    case State::NeedsPassphrase:
        askPassphrase(node, status.keyFile);
        break;
    default:
        connection->reconnectNow();
    }
}

void NodesView::askPassphrase(const QString &node, const QString &keyFile) {
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Key passphrase"));
    auto *secret = new QLineEdit;
    secret->setEchoMode(QLineEdit::Password);
    auto *keep = new QCheckBox(tr("Keep it in the system keychain"));
    auto *form = new QFormLayout(&dialog);
    form->addRow(
        plainLabel(tr("The key %1 for %2 is protected by a passphrase.").arg(keyFile, node)));
    form->addRow(tr("Passphrase"), secret);
    form->addRow(keep);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    if (dialog.exec() != QDialog::Accepted)
        return;
    if (NodeConnection *connection = m_monitor->connection(node))
        connection->setPassphrase(secret->text());
    if (keep->isChecked()) {
        keychain::write(keychain::sshKeyPassphrase(keyFile), secret->text(), this,
                        [this](const QString &failed) {
                            if (!failed.isEmpty())
                                Q_EMIT error(
                                    tr("The keychain did not keep the passphrase: %1").arg(failed));
                        });
    }
}

void NodesView::saveNodes(const QList<NodeConfig> &nodes) {
    auto config = Config::load(m_configPath);
    if (!config) {
        Q_EMIT error(tr("Not saving nodes: %1").arg(config.error()));
        return;
    }
    if (!config->problems.isEmpty()) { // saving would drop the entries that did not load
        Q_EMIT error(tr("Not saving nodes: fix these entries of %1 first: %2")
                         .arg(m_configPath, config->problems.join(u"; "_s)));
        return;
    }
    config.value().nodes = nodes;
    if (const Status saved = config->save(m_configPath); !saved)
        Q_EMIT error(saved.error());
    m_monitor->setNodes(nodes);
}

void NodesView::addNodes(const QList<NodeConfig> &added) {
    QList<NodeConfig> nodes = m_monitor->nodes();
    for (const NodeConfig &node : added) {
        nodes.removeIf([&](const NodeConfig &n) { return n.name == node.name; });
        nodes << node;
    }
    saveNodes(nodes);
}

void NodesView::editNode(const QString &name) {
    QList<NodeConfig> nodes = m_monitor->nodes();
    QStringList names;
    NodeConfig initial;
    for (const NodeConfig &node : nodes) {
        names << node.name;
        if (node.name == name)
            initial = node;
    }
    const auto edited = nodeDialog(this, initial, names, m_monitor->options().knownHostsFile);
    if (!edited)
        return;
    nodes.removeIf([&](const NodeConfig &n) { return n.name == name; });
    nodes << *edited;
    saveNodes(nodes);
}

void NodesView::importSshConfig() {
    const auto text = readRegularFile(QDir::homePath() + u"/.ssh/config"_s, kMaxConfigBytes);
    if (!text) {
        Q_EMIT error(tr("Cannot import hosts: %1").arg(text.error()));
        return;
    }
    const QList<NodeConfig> hosts = sb::importSshConfig(*text);
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Import hosts from ~/.ssh/config"));
    auto *list = new QListWidget;
    for (const NodeConfig &host : hosts) {
        auto *item = new QListWidgetItem(
            u"%1  (%2%3:%4%5)"_s
                .arg(host.name, host.user.isEmpty() ? QString() : host.user + u'@', host.host)
                .arg(host.port)
                .arg(host.proxyJump.isEmpty() ? QString() : u" via "_s + host.proxyJump));
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(m_cards.contains(host.name) ? Qt::Unchecked : Qt::Checked);
        list->addItem(item);
    }
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    auto *layout = new QVBoxLayout(&dialog);
    layout->addWidget(new QLabel(hosts.isEmpty() ? tr("~/.ssh/config names no concrete hosts.")
                                                 : tr("Watch these hosts:")));
    layout->addWidget(list);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    if (dialog.exec() != QDialog::Accepted)
        return;
    QList<NodeConfig> chosen;
    for (int i = 0; i < list->count(); ++i) {
        if (list->item(i)->checkState() == Qt::Checked)
            chosen << hosts[i];
    }
    addNodes(chosen);
}

void NodesView::setFilter(const QString &text, const QString &show) {
    m_filter->setText(text);
    m_show->setCurrentIndex(std::max(0, m_show->findData(show)));
    relayout();
}

void NodesView::setSort(const QString &key) {
    m_sort->setCurrentIndex(std::max(0, m_sort->findData(key)));
    relayout();
}

NodeHistory *NodesView::showHistory(const QString &node) {
    if (!m_collector)
        return nullptr;
    auto *history = new NodeHistory(m_collector, node, this);
    history->setAttribute(Qt::WA_DeleteOnClose);
    history->show();
    return history;
}

void NodesView::setClusterGpus(ClusterGpuWatch *clusters) {
    connect(clusters, &ClusterGpuWatch::jobSampled, this,
            [this](const Job &job, const std::vector<JobNodeSample> &samples) {
                m_jobGpus[job.id] = {job.id, samples};
                if (!m_relayout.isActive())
                    m_relayout.start();
            });
    connect(clusters, &ClusterGpuWatch::jobNotSampled, this,
            [this](const Job &job, const QString &) {
                m_jobGpus.remove(job.id); // ended, or cannot be read: no stale rows
                if (!m_relayout.isActive())
                    m_relayout.start();
            });
    connect(clusters, &ClusterGpuWatch::clusterSummary, this,
            [this](const QString &cluster, const QString &summary) {
                m_clusterSummaries[cluster] = summary;
                if (!m_relayout.isActive())
                    m_relayout.start();
            });
}

void NodesView::setLayoutMode(const QString &mode) {
    m_layoutMode->setCurrentIndex(std::max(0, m_layoutMode->findData(mode)));
}

QString NodesView::fleetSummaryText() const {
    return m_fleetSummary->text();
}

QList<NodeCard *> NodesView::visibleCards() const {
    const QString text = m_filter->text().trimmed();
    const bool freeOnly = m_show->currentData() == u"free"_s;
    QList<NodeCard *> cards;
    for (const auto &[name, card] : m_cards) {
        if (freeOnly && card->freeGpus() == 0)
            continue;
        if (!text.isEmpty()) {
            // Match the node, its GPUs, and who runs what on it.
            QStringList haystack{name, card->status().message};
            const NodeSample &s = card->lastSample();
            for (const GpuReading &gpu : s.gpus)
                haystack << gpu.name;
            for (const GpuProcess &p : s.gpuProcesses)
                haystack << p.user << p.command;
            for (const ProcessRow &p : s.topCpu)
                haystack << p.user << p.command;
            if (!haystack.join(u'\n').contains(text, Qt::CaseInsensitive))
                continue;
        }
        cards << card;
    }
    const QString sort = m_sort->currentData().toString();
    std::stable_sort(cards.begin(), cards.end(), [&](NodeCard *a, NodeCard *b) {
        if (sort == u"free"_s && a->freeGpus() != b->freeGpus())
            return a->freeGpus() > b->freeGpus();
        if (sort == u"busy"_s && a->gpuBusyPercent() != b->gpuBusyPercent())
            return a->gpuBusyPercent() > b->gpuBusyPercent();
        return QString::localeAwareCompare(a->node(), b->node()) < 0;
    });
    return cards;
}

void NodesView::relayout() {
    const QList<NodeCard *> shown = visibleCards();
    updateHint(shown.isEmpty());
    std::vector<FleetTable::Node> everyNode;
    for (const auto &[name, card] : m_cards)
        everyNode.push_back({name, card->status(), card->lastSample(), card->insights(), {}});
    QStringList summary{fleetSummary(everyNode)};
    for (auto it = m_clusterSummaries.cbegin(); it != m_clusterSummaries.cend(); ++it)
        summary << tr("cluster %1: %2").arg(it.key(), it.value());
    m_fleetSummary->setText(summary.join(u'\n'));
    if (m_pages->currentIndex() == 1) {
        std::vector<FleetTable::Node> rows;
        for (NodeCard *card : shown)
            rows.push_back(
                {card->node(), card->status(), card->lastSample(), card->insights(), card->runs()});
        // Running cluster jobs, read where they run: every process there is the job's.
        for (const JobGpus &job : std::as_const(m_jobGpus)) {
            for (const JobNodeSample &place : job.samples) {
                QHash<qint64, QString> ours;
                for (const GpuProcess &process : place.sample.gpuProcesses)
                    ours.insert(process.processGroup, job.job);
                FleetTable::Node row{
                    tr("job %1 on %2").arg(job.job, place.where), {}, place.sample, {}, ours};
                row.status.state = place.sample.error.isEmpty() ? NodeStatus::State::Connected
                                                                : NodeStatus::State::Unreachable;
                row.status.message = place.sample.error;
                rows.push_back(std::move(row));
            }
        }
        m_fleet->setNodes(std::move(rows));
    }
    if (shown == m_shown)
        return;
    m_shown = shown;
    for (const auto &[name, card] : m_cards) {
        m_gridLayout->removeWidget(card);
        card->setVisible(shown.contains(card));
    }
    for (int row = 0; row < m_gridLayout->rowCount(); ++row)
        m_gridLayout->setRowStretch(row, 0);
    for (qsizetype i = 0; i < shown.size(); ++i)
        m_gridLayout->addWidget(shown[i], static_cast<int>(i / m_columns),
                                static_cast<int>(i % m_columns));
    // Cards keep their natural height; the space left goes below the last row.
    m_gridLayout->setRowStretch(static_cast<int>((shown.size() + m_columns - 1) / m_columns), 1);
}

void NodesView::updateHint(bool noneShown) {
    QString hint;
    if (noneShown)
        hint = tr("No node matches the filter.");
    else if (m_monitor->nodes().isEmpty())
        hint = tr("<b>No SSH nodes yet.</b> <a href=\"add\">Add a node…</a> or <a "
                  "href=\"import\">import hosts from ~/.ssh/config</a> to watch the lab's GPU "
                  "boxes beside this computer and run on their free GPUs. Nodes are kept in %1.")
                   .arg(m_configPath.toHtmlEscaped());
    if (hint != m_hint->text())
        m_hint->setText(hint);
    m_hint->setVisible(!hint.isEmpty());
}

void NodesView::resizeEvent(QResizeEvent *event) {
    QWidget::resizeEvent(event);
    const int columns = std::max(1, width() / 900);
    if (columns != m_columns) {
        m_columns = columns;
        m_shown.clear();
        relayout();
    }
}

} // namespace sb
