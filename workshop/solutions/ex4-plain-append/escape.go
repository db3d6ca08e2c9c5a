package main

import "unicode/utf8"

// appendString appends s as a quoted JSON string, escaped as encoding/json
// escapes it. Runs of bytes that need no escaping are copied with one
// append each; that is the only trick here.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0 // s[start:i] needs no escaping and is not appended yet
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if escape := escaped(r, size); escape != "" {
			dst = append(append(dst, s[start:i]...), escape...)
			start = i + size
		}
		i += size
	}
	return append(append(dst, s[start:]...), '"')
}

// escaped is how encoding/json writes the rune r, decoded from size bytes,
// or "" if it copies those bytes as they are: quotes, backslashes and
// control characters; < > & for HTML safety; U+2028 and U+2029, which
// JavaScript reads as line ends; and each byte of invalid UTF-8 as \ufffd.
func escaped(r rune, size int) string {
	switch r {
	case '"':
		return `\"`
	case '\\':
		return `\\`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '<', '>', '&', '\u2028', '\u2029':
		return unicodeEscape(r)
	case utf8.RuneError:
		if size == 1 {
			return `\ufffd`
		}
	}
	if r < 0x20 {
		return unicodeEscape(r)
	}
	return ""
}

// unicodeEscape is r written as \uXXXX, in lower-case hex as encoding/json
// writes it.
func unicodeEscape(r rune) string {
	const hex = "0123456789abcdef"
	return string([]byte{'\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf]})
}
