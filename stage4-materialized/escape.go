package main

import (
	"fmt"
	"unicode/utf8"
)

// appendEscaped appends the inside of the JSON string s, without its quotes,
// escaped byte for byte as encoding/json.Marshal escapes it: the ASCII bytes
// of asciiEscapes, U+2028 and U+2029 as \u2028 and \u2029, and each byte of
// invalid UTF-8 as \ufffd. Everything else, DEL (0x7f) and valid non-ASCII
// text included, is copied as it is. Most strings of a user need no escaping,
// so the fast path proves that and copies the whole string in one append;
// the loop over each byte runs only for a string that holds a special one.
func appendEscaped(dst []byte, s string) []byte {
	if isPlain(s) {
		return append(dst, s...)
	}
	start := 0 // s[start:i] is plain and not appended yet
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if escape := asciiEscapes[b]; escape != "" {
				dst = append(append(dst, s[start:i]...), escape...)
				start = i + 1
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			const hex = "0123456789abcdef"
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', hex[r>>12], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
			start = i + size
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
	escapes['"'], escapes['\\'] = `\"`, `\\`
	escapes['<'], escapes['>'], escapes['&'] = `\u003c`, `\u003e`, `\u0026`
	return escapes
}()

// isPlain reports whether s is copied as it is: printable ASCII with no
// byte that asciiEscapes escapes. It tests eight bytes at a time while it can.
func isPlain(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if hasSpecialByte(load64(s, i)) {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || asciiEscapes[s[i]] != "" {
			return false
		}
	}
	return true
}

// hasSpecialByte reports whether any of the eight bytes of w is not plain,
// in a dozen word operations instead of eight look-ups. Subtracting 0x20
// from every byte at once sets the high bit of each byte below 0x20; XOR
// with a repeated byte turns "equals c" into "is zero", and subtracting 0x01
// then sets the high bit of that byte; a byte of 0x80 or more has it set
// already. A subtraction can borrow from the byte above and set its bit too,
// but only when a byte below it is special itself: the answer stays exact.
func hasSpecialByte(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	control := w - 0x20*ones
	quote, backslash := (w^'"'*ones)-ones, (w^'\\'*ones)-ones
	less, greater, amp := (w^'<'*ones)-ones, (w^'>'*ones)-ones, (w^'&'*ones)-ones
	return (control|quote|backslash|less|greater|amp|w)&highs != 0
}

// load64 reads s[i:i+8] as one little-endian word; the compiler turns the
// eight byte loads into a single load.
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
