package main

import (
	"fmt"
	"unicode/utf8"
)

// appendEscaped appends the JSON string s, unquoted, escaped as encoding/json
// does: the bytes of asciiEscapes, U+2028 and U+2029. Each byte of invalid
// UTF-8 becomes U+FFFD, written as it is, as Go 1.27's encoding/json writes
// it (Go 1.26's wrote the escape \ufffd; common/apitest/encoder.go states the rule).
// Most strings need none of this: isPlain proves it, and s is copied.
func appendEscaped(dst []byte, s string) []byte {
	if isPlain(s) {
		return append(dst, s...)
	}
	start := 0 // s[start:i] is plain and not appended yet
	for i := 0; i < len(s); {
		c, size := s[i], 1
		switch {
		case c < utf8.RuneSelf:
			if escape := asciiEscapes[c]; escape != "" {
				dst = append(append(dst, s[start:i]...), escape...)
				start = i + 1
			}
		case i+2 < len(s) && c >= 0xe1 && c <= 0xec && c != 0xe2 && s[i+1]&0xc0 == 0x80 && s[i+2]&0xc0 == 0x80:
			size = 3 // a valid three-byte rune other than U+2028 and U+2029: most CJK, Hangul below U+D000
		default:
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				dst = append(append(dst, s[start:i]...), "\uFFFD"...)
				start = i + 1
			case r == '\u2028' || r == '\u2029':
				const hex = "0123456789abcdef"
				dst = append(append(dst, s[start:i]...), '\\', 'u', hex[r>>12], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
				start = i + size
			}
		}
		i += size
	}
	return append(dst, s[start:]...)
}

// asciiEscapes[b] is how encoding/json writes the ASCII byte b, or "" if it
// copies b as it is; < > & are escaped for HTML safety, as Marshal does.
var asciiEscapes = func() (escapes [utf8.RuneSelf]string) {
	for b := range 0x20 {
		escapes[b] = fmt.Sprintf(`\u%04x`, b)
	}
	escapes['\b'], escapes['\f'], escapes['\n'], escapes['\r'], escapes['\t'] = `\b`, `\f`, `\n`, `\r`, `\t`
	escapes['"'], escapes['\\'], escapes['<'], escapes['>'], escapes['&'] = `\"`, `\\`, `\u003c`, `\u003e`, `\u0026`
	return escapes
}()

// isPlain reports whether s is printable ASCII that asciiEscapes leaves
// alone, testing eight bytes at a time; the last word may overlap the one
// before, and four to seven bytes are tested as two overlapping halves.
func isPlain(s string) bool {
	switch {
	case len(s) >= 8:
		for i := 0; i+8 < len(s); i += 8 {
			if hasSpecialByte(load64(s, i)) {
				return false
			}
		}
		return !hasSpecialByte(load64(s, len(s)-8))
	case len(s) >= 4:
		return !hasSpecialByte(load32(s, 0) | load32(s, len(s)-4)<<32)
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || asciiEscapes[s[i]] != "" {
			return false
		}
	}
	return true
}

// hasSpecialByte reports whether a byte of w is not plain, in a dozen word
// operations. Subtracting 0x20 from every byte at once sets the high bit of
// each byte below 0x20; XOR with a repeated c turns "equals c" into "is 0",
// which subtracting 0x01 then marks; 0x80 and above have the bit already.
// A borrow can mark the byte above a special one, never a plain word.
func hasSpecialByte(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	control := w - 0x20*ones
	quote, backslash := (w^'"'*ones)-ones, (w^'\\'*ones)-ones
	less, greater, amp := (w^'<'*ones)-ones, (w^'>'*ones)-ones, (w^'&'*ones)-ones
	return (control|quote|backslash|less|greater|amp|w)&highs != 0
}

// load64 and load32 read eight or four bytes of s from i as one
// little-endian word; the compiler turns the byte loads into a single load.
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func load32(s string, i int) uint64 {
	s = s[i : i+4]
	return uint64(uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24)
}
