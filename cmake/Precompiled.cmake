# Precompiled headers: the Qt and standard headers nearly every file includes, parsed once per
# target instead of once per file (a file parses ~160,000 lines of them before its own).
# Sources still include what they use: scripts/check-static runs clang-tidy without these.
set(signalbox_pch_core
  <QByteArray> <QDateTime> <QDir> <QFile> <QFileInfo> <QHash> <QJsonArray> <QJsonDocument>
  <QJsonObject> <QList> <QObject> <QSet> <QString> <QStringList> <QTimer> <QUrl>
  <algorithm> <cmath> <functional> <memory> <optional> <vector>)
set(signalbox_pch_widgets
  <QComboBox> <QDialog> <QHBoxLayout> <QLabel> <QLineEdit> <QPainter> <QPushButton>
  <QVBoxLayout> <QWidget>)
set(signalbox_pch_tests <QProcess> <QSignalSpy> <QTemporaryDir> <QTest>)

# signalbox_use_pch(TARGET KIND...): TARGET precompiles the lists named (core, widgets, tests).
function(signalbox_use_pch target)
  set(headers)
  foreach(kind IN LISTS ARGN)
    list(APPEND headers ${signalbox_pch_${kind}})
  endforeach()
  target_precompile_headers(${target} PRIVATE ${headers})
endfunction()
