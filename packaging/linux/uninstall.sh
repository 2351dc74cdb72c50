#!/bin/sh
# Remove what install.sh put into ~/.local (menu entry, icons, command links, the elftia:// handler).
# The bundle folder and your data (~/.local/share/elftia) stay.
set -eu

data="${XDG_DATA_HOME:-$HOME/.local/share}"
bin="$HOME/.local/bin"
config="${XDG_CONFIG_HOME:-$HOME/.config}"

rm -f "$data/applications/elftia-desktop.desktop"
for size in 16 24 32 48 64 128 256 512; do
    rm -f "$data/icons/hicolor/${size}x${size}/apps/elftia-desktop.png"
done
rm -f "$data/icons/hicolor/scalable/apps/elftia-desktop.svg"
for exe in elftia-desktop elftia-mcp; do
    if [ -L "$bin/$exe" ]; then rm -f "$bin/$exe"; fi
done
for list in "$config/mimeapps.list" "$data/applications/mimeapps.list"; do
    if [ -f "$list" ]; then sed -i '/^x-scheme-handler\/elftia=elftia-desktop.desktop;*$/d' "$list"; fi
done

command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$data/applications" || true
command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t -f "$data/icons/hicolor" || true
echo "Removed the Elftia Desktop menu entry, icons, command links and link handler. Your data is kept."
