#!/bin/sh
# Builds a seed-style Hold'em entry (a C# file with one class extending
# HoldemPlayer) into a bot for the arena, with the C# shim:
#
#   sh shims/csharp/build.sh ENTRY.cs OUT.exe [MORE.cs ...]
#   arena holdem "mono OUT.exe" OTHER_BOT ...
#
# Needs mcs (Debian: mono-mcs) and, to run, mono (mono-runtime); `make
# system-deps` installs both. Compiler warnings are shown; errors stop it.
set -eu
if [ $# -lt 2 ]; then
    echo "usage: sh $0 ENTRY.cs OUT.exe [MORE.cs ...]" >&2
    exit 2
fi
entry=$1
out=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v mcs >/dev/null 2>&1; then
    echo "$0: mcs not found: install mono-mcs and mono-runtime (make system-deps does)" >&2
    exit 2
fi
mkdir -p "$(dirname "$out")"
exec mcs -nologo -warn:4 -optimize+ -out:"$out" "$here"/*.cs "$entry" "$@"
