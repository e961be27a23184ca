#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the QEMU test kernel (bzImage + the kernel's own modules) from
# tinyconfig plus tools/testing/vm/kernel.config, cached outside the repo.
# ENTROPY_DEBUG=1: the debug kernel, tools/testing/vm/kernel-debug.config on top.
. "$(dirname "$0")/common.sh"

ksrc_init
if [ -f "$KBUILD/.built-ok" ]; then
	say "test kernel $KVER: cached in $KBUILD"
	exit 0
fi

# A configuration not built yet starts from the newest build of the same
# kind with another configuration: Kbuild then rebuilds only what the
# changed options reach (minutes instead of a whole kernel).
if [ ! -d "$KBUILD" ]; then
	kind=${KBUILD%-*}
	# none on a fresh machine: ls fails, which is no error here
	seed=$(ls -dt "$kind"-????????????/.built-ok 2>/dev/null | head -n 1) || seed=
	if [ -n "$seed" ]; then
		say "test kernel $KVER: starting from ${seed%/.built-ok}"
		cp -a "${seed%/.built-ok}" "$KBUILD.tmp" && rm -f "$KBUILD.tmp/.built-ok" &&
			mv "$KBUILD.tmp" "$KBUILD"
	fi
fi
say "test kernel $KVER: configuring in $KBUILD"
mkdir -p "$KBUILD"
make -s -C "$KSRC" O="$KBUILD" tinyconfig >/dev/null
"$KSRC/scripts/kconfig/merge_config.sh" -m -O "$KBUILD" \
	"$KBUILD/.config" "${FRAGMENTS[@]}" >/dev/null
make -s -C "$KSRC" O="$KBUILD" olddefconfig >/dev/null

# Every option of every fragment must have survived olddefconfig.
missing=0
for f in "${FRAGMENTS[@]}"; do
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) ;;
		*) continue ;;
		esac
		if ! grep -qx "$line" "$KBUILD/.config"; then
			echo "error: $line (${f#"$REPO"/}) did not take (dependency missing?)" >&2
			missing=1
		fi
	done < "$f"
done
[ "$missing" = 0 ] || die "fix the fragment named above"

say "test kernel $KVER: building bzImage and modules (a few minutes, once)"
start=$SECONDS
make -s -C "$KSRC" O="$KBUILD" -j"$JOBS" bzImage modules
rm -rf "$MODROOT"
make -s -C "$KSRC" O="$KBUILD" INSTALL_MOD_PATH="$MODROOT" \
	modules_install >/dev/null
touch "$KBUILD/.built-ok"
say "test kernel $KVER: built in $((SECONDS - start)) s"
