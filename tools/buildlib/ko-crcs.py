#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# The symbol CRCs that kernel modules export, as Module.symvers has them:
# "SYMBOL<tab>CRC" lines (CRC as 0x%08x), for each MODULE (.ko, .ko.xz or
# .ko.gz, as installed).  With CONFIG_MODVERSIONS a module's __crc_SYMBOL
# symbols point into its __kcrctab (or __kcrctab_gpl) section, where the 4
# bytes of the CRC lie.
#
#   tools/buildlib/ko-crcs.py MODULE...
import gzip
import io
import lzma
import sys

from elftools.elf.elffile import ELFFile


def module_bytes(path):
    opener = {"xz": lzma.open, "gz": gzip.open}.get(path.rsplit(".", 1)[-1], open)
    with opener(path, "rb") as f:
        return f.read()


def crcs(path):
    elf = ELFFile(io.BytesIO(module_bytes(path)))
    symtab = elf.get_section_by_name(".symtab")
    if symtab is None:
        sys.exit(f"error: {path}: no symbol table (stripped?)")
    for sym in symtab.iter_symbols():
        if not sym.name.startswith("__crc_"):
            continue
        section = elf.get_section(sym["st_shndx"])
        off = sym["st_value"]
        data = section.data()[off:off + 4]
        if len(data) != 4:
            sys.exit(f"error: {path}: {sym.name} lies outside {section.name}")
        yield sym.name[len("__crc_"):], int.from_bytes(data, "little" if elf.little_endian else "big")


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: tools/buildlib/ko-crcs.py MODULE...")
    for path in sys.argv[1:]:
        try:
            for name, crc in crcs(path):
                print(f"{name}\t0x{crc:08x}")
        except OSError as e:
            sys.exit(f"error: {path}: {e.strerror or e}")


if __name__ == "__main__":
    main()
