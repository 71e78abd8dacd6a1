#!/usr/bin/env bash
# Moves the DWARF debug info of installed ELF files into files of their own, as Debian's
# packages ship it (dh_strip's -dbgsym):
#
#   scripts/split-debug.sh FILE...
#
# For each FILE, in its folder: .debug/NAME.debug gets the debug info (objcopy
# --only-keep-debug, sections compressed), FILE loses it (strip --strip-debug: the symbol
# table stays, so a backtrace still names functions) and gets a .gnu_debuglink to the .debug
# file, where gdb and other debuggers look for it on their own (the FILE's folder's .debug/).
# The library and the CLI go from 29 MB to 17 MB each. Needs binutils (objcopy, strip).
set -euo pipefail
for file in "$@"; do
    folder="$(dirname "$file")" name="$(basename "$file")"
    mkdir -p "$folder/.debug"
    objcopy --only-keep-debug --compress-debug-sections=zlib "$file" "$folder/.debug/$name.debug"
    chmod 0644 "$folder/.debug/$name.debug"
    strip --strip-debug "$file"
    # The link names the file and its CRC; run from the folder, so it stores the name alone.
    (cd "$folder" && objcopy --add-gnu-debuglink=".debug/$name.debug" "$name")
done
