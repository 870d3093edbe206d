#!/usr/bin/env python3
"""modversion-mismatch.py KO SYMBOL OUT: a copy of the kernel module KO
whose recorded CRC for SYMBOL (its __versions entry) is changed, as if KO
had been built against a kernel whose SYMBOL had other types.  The module
loader must refuse OUT ("disagrees about version of symbol SYMBOL"): the
takeover's refusal of an ib_core it was not built for is tested with it.
ELF64 little-endian only (x86-64 modules)."""
import struct
import sys

ENTRY = 64  # struct modversion_info: unsigned long crc; char name[56]


def section(data, wanted):
    """(offset, size) of the section named WANTED."""
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    str_off, = struct.unpack_from('<Q', data, shoff + shstrndx * shentsize + 0x18)
    for i in range(shnum):
        hdr = shoff + i * shentsize
        name_off, = struct.unpack_from('<I', data, hdr)
        end = data.index(b'\0', str_off + name_off)
        if data[str_off + name_off:end] == wanted:
            return struct.unpack_from('<QQ', data, hdr + 0x18)
    sys.exit(f'modversion-mismatch: no {wanted.decode()} section')


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    ko, symbol, out = sys.argv[1], sys.argv[2].encode(), sys.argv[3]
    with open(ko, 'rb') as f:
        data = bytearray(f.read())
    if data[:6] != b'\x7fELF\x02\x01':
        sys.exit(f'modversion-mismatch: {ko} is not a 64-bit little-endian ELF file')
    off, size = section(data, b'__versions')
    for entry in range(off, off + size, ENTRY):
        name = bytes(data[entry + 8:entry + ENTRY]).split(b'\0')[0]
        if name == symbol:
            crc, = struct.unpack_from('<Q', data, entry)
            struct.pack_into('<Q', data, entry, crc ^ 0xffffffff)
            break
    else:
        sys.exit(f'modversion-mismatch: {ko} records no CRC for {symbol.decode()}')
    with open(out, 'wb') as f:
        f.write(data)


if __name__ == '__main__':
    main()
