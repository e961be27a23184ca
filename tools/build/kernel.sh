#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the QEMU test kernel (bzImage + the kernel's own modules) from
# tinyconfig plus tools/qemu/kernel.config, cached outside the repo.
. "$(dirname "$0")/common.sh"

ksrc_init
if [ -f "$KBUILD/.built-ok" ]; then
	say "test kernel $KVER: cached in $KBUILD"
	exit 0
fi

say "test kernel $KVER: configuring in $KBUILD"
mkdir -p "$KBUILD"
make -s -C "$KSRC" O="$KBUILD" tinyconfig >/dev/null
"$KSRC/scripts/kconfig/merge_config.sh" -m -O "$KBUILD" \
	"$KBUILD/.config" "$FRAGMENT" >/dev/null
make -s -C "$KSRC" O="$KBUILD" olddefconfig >/dev/null

# Every option of the fragment must have survived olddefconfig.
missing=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) ;;
	*) continue ;;
	esac
	if ! grep -qx "$line" "$KBUILD/.config"; then
		echo "error: $line did not take (dependency missing?)" >&2
		missing=1
	fi
done < "$FRAGMENT"
[ "$missing" = 0 ] || die "fix tools/qemu/kernel.config"

say "test kernel $KVER: building bzImage and modules (a few minutes, once)"
start=$SECONDS
make -s -C "$KSRC" O="$KBUILD" -j"$JOBS" bzImage modules
rm -rf "$MODROOT"
make -s -C "$KSRC" O="$KBUILD" INSTALL_MOD_PATH="$MODROOT" \
	modules_install >/dev/null
touch "$KBUILD/.built-ok"
say "test kernel $KVER: built in $((SECONDS - start)) s"
