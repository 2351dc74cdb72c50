#!/bin/sh
# Put Elftia Desktop into the desktop's menu for this user (no root needed):
#   ~/.local/share/applications/elftia-desktop.desktop   the menu entry, also the elftia:// link handler
#   ~/.local/share/icons/hicolor/<size>/apps/             the icon
#   ~/.local/bin/elftia-desktop, ~/.local/bin/elftia-mcp  links to the bundle's executables
# Usage: install.sh [BUNDLE_FOLDER]   (default: the folder this script is in, else dist/elftia-desktop)
# Undo with uninstall.sh. The bundle folder stays where it is: move it first if you want it elsewhere.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ge 1 ]; then
    bundle=$(cd "$1" && pwd)
elif [ -x "$here/elftia-desktop" ]; then
    bundle=$here
else
    bundle=$(cd "$here/../.." && pwd)/dist/elftia-desktop
fi
if [ ! -x "$bundle/elftia-desktop" ]; then
    echo "No elftia-desktop executable in $bundle: build it with 'python3 dev.py package' first." >&2
    exit 1
fi
resources="$bundle/_internal/elftia_desktop/resources"
data="${XDG_DATA_HOME:-$HOME/.local/share}"
bin="$HOME/.local/bin"

for size in 16 24 32 48 64 128 256 512; do
    install -D -m 644 "$resources/icons/elftia-desktop-$size.png" "$data/icons/hicolor/${size}x${size}/apps/elftia-desktop.png"
done
install -D -m 644 "$resources/icons/elftia-desktop.svg" "$data/icons/hicolor/scalable/apps/elftia-desktop.svg"

mkdir -p "$data/applications"
exe="$bundle/elftia-desktop"
case "$exe" in
    *[[:space:]\"\'\\\`\$]*) exec_line="\"$exe\"" ;;  # quoted, as the desktop entry spec asks
    *) exec_line=$exe ;;  # plain: simple launchers such as xdg-open's generic mode take the first word
esac
sed -e "s|^Exec=.*|Exec=$exec_line %u|" -e "s|^TryExec=.*|TryExec=$exe|" \
    "$resources/elftia-desktop.desktop" > "$data/applications/elftia-desktop.desktop"
chmod 644 "$data/applications/elftia-desktop.desktop"

mkdir -p "$bin"
for exe in elftia-desktop elftia-mcp; do
    if [ -e "$bin/$exe" ] && [ ! -L "$bin/$exe" ]; then
        echo "Left $bin/$exe alone: it is not a link this script made."
    else
        ln -sf "$bundle/$exe" "$bin/$exe"
    fi
done

command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$data/applications" || true
command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t -f "$data/icons/hicolor" || true
if command -v xdg-mime >/dev/null 2>&1; then
    xdg-mime default elftia-desktop.desktop x-scheme-handler/elftia || true
    handler="registered with xdg-mime"
else
    handler="declared in the desktop file (xdg-mime not found)"
fi

echo "Installed Elftia Desktop from $bundle:"
echo "  menu entry  $data/applications/elftia-desktop.desktop"
echo "  icon        $data/icons/hicolor/*/apps/elftia-desktop.*"
echo "  commands    $bin/elftia-desktop, $bin/elftia-mcp"
echo "  links       elftia:// $handler"
