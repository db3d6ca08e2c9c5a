package main

import "unicode/utf8"

// appendString appends s as a quoted JSON string, escaped as encoding/json
// escapes it. Bytes that need no escaping are not appended one by one: a
// run of them is copied with one append when an escape or the end comes.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0 // s[start:i] needs no escaping and is not appended yet
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf { // ASCII: one byte, escaped or not
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = appendASCIIEscape(append(dst, s[start:i]...), c)
			i++
			start = i
			continue
		}
		// Beyond ASCII, each byte of invalid UTF-8 becomes U+FFFD, written as
		// it is, and U+2028 and U+2029, which JavaScript reads as line ends,
		// are escaped.
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(append(dst, s[start:i]...), "\uFFFD"...)
			start = i + 1
		case r == '\u2028' || r == '\u2029':
			dst = appendUnicodeEscape(append(dst, s[start:i]...), r)
			start = i + size
		}
		i += size
	}
	return append(append(dst, s[start:]...), '"')
}

// appendASCIIEscape appends how encoding/json writes the ASCII byte c that
// needs escaping: a quote, a backslash, a control character, or < > &,
// which it escapes so that JSON can sit inside HTML.
func appendASCIIEscape(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, `\n`...)
	case '\r':
		return append(dst, `\r`...)
	case '\t':
		return append(dst, `\t`...)
	case '\b':
		return append(dst, `\b`...)
	case '\f':
		return append(dst, `\f`...)
	}
	return appendUnicodeEscape(dst, rune(c))
}

// appendUnicodeEscape appends r as \uXXXX, in lower-case hex as encoding/json
// writes it.
func appendUnicodeEscape(dst []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}
