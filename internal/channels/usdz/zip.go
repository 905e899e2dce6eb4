package usdz

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// File is one package entry.
type File struct {
	Name string
	Data []byte
}

// Alignment is where every entry's data starts (a multiple of it), as the
// USDZ specification requires.
const Alignment = 64

// paddingID is the zip extra-field id of our alignment padding (a private
// id; readers skip extra fields they do not know).
const paddingID = 0x1986

// Pack writes a stored (uncompressed) zip with every entry's data aligned
// to 64 bytes and sizes and CRCs in the local headers (no data descriptors).
func Pack(files []File) ([]byte, error) {
	var out bytes.Buffer
	type central struct {
		name      string
		crc, size uint32
		offset    uint32
		extraLen  int
	}
	var dir []central
	for _, f := range files {
		if len(f.Data) > 1<<31 || len(f.Name) > 1024 {
			return nil, fmt.Errorf("usdz entry %s too large", f.Name)
		}
		offset := out.Len()
		pad := (Alignment - (offset+30+len(f.Name))%Alignment) % Alignment
		if pad > 0 && pad < 4 {
			pad += Alignment
		}
		crc := crc32.ChecksumIEEE(f.Data)
		hdr := make([]byte, 30)
		binary.LittleEndian.PutUint32(hdr[0:], 0x04034b50)
		binary.LittleEndian.PutUint16(hdr[4:], 20)    // version needed: 2.0
		binary.LittleEndian.PutUint16(hdr[6:], 0)     // flags: no encryption, no data descriptor
		binary.LittleEndian.PutUint16(hdr[8:], 0)     // method: stored
		binary.LittleEndian.PutUint16(hdr[10:], 0)    // time
		binary.LittleEndian.PutUint16(hdr[12:], 0x21) // date: 1980-01-01
		binary.LittleEndian.PutUint32(hdr[14:], crc)
		binary.LittleEndian.PutUint32(hdr[18:], uint32(len(f.Data)))
		binary.LittleEndian.PutUint32(hdr[22:], uint32(len(f.Data)))
		binary.LittleEndian.PutUint16(hdr[26:], uint16(len(f.Name)))
		binary.LittleEndian.PutUint16(hdr[28:], uint16(pad))
		out.Write(hdr)
		out.WriteString(f.Name)
		if pad > 0 {
			extra := make([]byte, pad)
			binary.LittleEndian.PutUint16(extra[0:], paddingID)
			binary.LittleEndian.PutUint16(extra[2:], uint16(pad-4))
			out.Write(extra)
		}
		out.Write(f.Data)
		dir = append(dir, central{name: f.Name, crc: crc, size: uint32(len(f.Data)), offset: uint32(offset)})
	}
	start := out.Len()
	for _, c := range dir {
		hdr := make([]byte, 46)
		binary.LittleEndian.PutUint32(hdr[0:], 0x02014b50)
		binary.LittleEndian.PutUint16(hdr[4:], 20)
		binary.LittleEndian.PutUint16(hdr[6:], 20)
		binary.LittleEndian.PutUint16(hdr[12:], 0) // time (flags at 8 and method at 10 stay 0: stored)
		binary.LittleEndian.PutUint16(hdr[14:], 0x21)
		binary.LittleEndian.PutUint32(hdr[16:], c.crc)
		binary.LittleEndian.PutUint32(hdr[20:], c.size)
		binary.LittleEndian.PutUint32(hdr[24:], c.size)
		binary.LittleEndian.PutUint16(hdr[28:], uint16(len(c.name)))
		binary.LittleEndian.PutUint32(hdr[42:], c.offset)
		out.Write(hdr)
		out.WriteString(c.name)
	}
	end := make([]byte, 22)
	binary.LittleEndian.PutUint32(end[0:], 0x06054b50)
	binary.LittleEndian.PutUint16(end[8:], uint16(len(dir)))
	binary.LittleEndian.PutUint16(end[10:], uint16(len(dir)))
	binary.LittleEndian.PutUint32(end[12:], uint32(out.Len()-start))
	binary.LittleEndian.PutUint32(end[16:], uint32(start))
	out.Write(end)
	return out.Bytes(), nil
}
