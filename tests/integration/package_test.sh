#!/usr/bin/env bash
# Builds the .deb and .tar.gz, unpacks the .deb into a temporary root, and runs the CLI from it.
set -euo pipefail
build="$1"
cd "$build"
cpack -G "DEB;TGZ" >/dev/null
deb="$(ls packages/signalbox-*.deb | head -n1)"
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
dpkg-deb -x "$deb" "$root"
dpkg-deb -f "$deb" Package Version Depends
for f in usr/bin/signalbox-cli usr/bin/signalbox-collector usr/share/signalbox/examples/train_mlp.py usr/share/signalbox/examples/sweeps/lr-grid-nodes.yaml \
         usr/share/signalbox/clients/python/signalbox/__init__.py usr/share/signalbox/clients/python/pyproject.toml \
         usr/share/signalbox/clients/python/signalbox/integrations/lightning.py; do
  [ -e "$root/$f" ] || { echo "missing from the package: $f"; exit 1; }
done
version="$("$root/usr/bin/signalbox-cli" --version)"
echo "$version"
[[ "$version" == "signalbox-cli "* ]]
if [ -e "$root/usr/bin/signalbox" ]; then
  for f in usr/share/applications/io.signalbox.Signalbox.desktop usr/share/metainfo/io.signalbox.Signalbox.metainfo.xml \
           usr/share/icons/hicolor/scalable/apps/io.signalbox.Signalbox.svg; do
    [ -e "$root/$f" ] || { echo "missing from the package: $f"; exit 1; }
  done
  desktop-file-validate "$root/usr/share/applications/io.signalbox.Signalbox.desktop"
  appstreamcli validate --no-net "$root/usr/share/metainfo/io.signalbox.Signalbox.metainfo.xml"
fi
ls packages/
echo "package: 1 passed, 0 failed"
