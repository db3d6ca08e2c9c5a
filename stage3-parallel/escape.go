package main

import (
	"math/bits"
	"unicode/utf8"
)

// appendString appends s as a JSON string, quoted and escaped byte for byte
// as encoding/json.Marshal escapes it (with its default HTML escaping).
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = appendEscaped(dst, s)
	return append(dst, '"')
}

// appendEscaped appends the inside of the JSON string s, without the quotes:
//
//	" and \                          \" and \\
//	\b \f \n \r \t                   short escapes
//	other bytes below 0x20           \u00XX (lower-case hex)
//	< > &                            \u003c \u003e \u0026
//	U+2028 U+2029                    \u2028 \u2029
//	each byte of invalid UTF-8       \ufffd
//
// Everything else, DEL (0x7f) included, is copied as it is. Most strings of
// a user need no escaping at all, so the work is to find that out quickly:
// needsAttention tests eight bytes at a time, and a safe run is appended
// with one copy, never byte by byte.
func appendEscaped(dst []byte, s string) []byte {
	// The common case, nothing to escape, is settled here without a call:
	// whole words, then the last eight bytes (all of them safe but the
	// new ones, so no borrow can spoil the test), or for a string of four
	// to seven bytes two overlapping halves. On the benchmark's users this
	// was about a fifth faster than calling skipSafe for every string.
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if m := needsAttention(load64(s, i)); m != 0 {
			return appendEscapedFrom(dst, s, i+bits.TrailingZeros64(m)/8)
		}
	}
	switch left := len(s) - i; {
	case left == 0:
		return append(dst, s...)
	case left < 8 && len(s) >= 8:
		if needsAttention(load64(s, len(s)-8)) == 0 {
			return append(dst, s...)
		}
	case left >= 4 && left < 8:
		if needsAttention(load32(s, 0)|load32(s, len(s)-4)<<32) == 0 {
			return append(dst, s...)
		}
	}
	// Something needs escaping, or s is shorter than four bytes.
	return appendEscapedFrom(dst, s, skipSafe(s, i))
}

// appendEscapedFrom is appendEscaped once s[i] is known to be the first
// byte that is not copied as it is (or i is len(s)).
func appendEscapedFrom(dst []byte, s string, i int) []byte {
	start := 0 // s[start:i] is safe and not yet appended
	for ; i < len(s); i = skipSafe(s, i) {
		if b := s[i]; b < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			dst = appendEscapedASCII(dst, b)
			i++
			start = i
			continue
		}
		// A byte of 0x80 or more starts a multi-byte rune, which is copied
		// as it is unless it is invalid or one of the two line separators.
		// Most non-ASCII text in names (Hangul, CJK, full-width forms) is
		// three-byte runes whose first byte alone proves that they are
		// neither: then checking the two continuation bytes is enough.
		for i+2 < len(s) {
			if c := s[i]; c < 0xe1 || c > 0xef || c == 0xe2 || c == 0xed ||
				s[i+1]&0xc0 != 0x80 || s[i+2]&0xc0 != 0x80 {
				break
			}
			i += 3
		}
		if i == len(s) || s[i] < utf8.RuneSelf {
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			start = i + size
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			start = i + size
		}
		i += size
	}
	return append(dst, s[start:]...)
}

// appendEscapedASCII appends the escape of an ASCII byte that needs one.
func appendEscapedASCII(dst []byte, b byte) []byte {
	switch b {
	case '"', '\\':
		return append(dst, '\\', b)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	// The other control characters, and < > & for HTML safety.
	return append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
}

const hexDigits = "0123456789abcdef"

// skipSafe returns the index of the first byte at or after i that is not
// copied as it is (see needsAttention), or len(s) if there is none.
func skipSafe(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		if m := needsAttention(load64(s, i)); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	if len(s) >= 8 {
		// Fewer than eight bytes are left: test the last eight bytes of s,
		// with the ones already tested replaced by spaces. They may hold
		// a special byte that was escaped already, and its borrow would
		// mark the byte after it. Shifting by 64 (nothing left) gives 0.
		checked := 8 * uint(i-(len(s)-8))
		w := load64(s, len(s)-8)>>checked<<checked | 0x2020202020202020>>(64-checked)
		if m := needsAttention(w); m != 0 {
			return len(s) - 8 + bits.TrailingZeros64(m)/8
		}
		return len(s)
	}
	// A string shorter than a word, such as most roles: gather its bytes
	// into one word, padded with spaces, test them at once, and look for
	// the position byte by byte only if there is something to find.
	var w uint64
	switch left := len(s) - i; {
	case left >= 4: // two loads of four bytes, overlapping if left < 8
		w = load32(s, i) | load32(s, len(s)-4)<<32
	case left > 0: // first, middle and last byte
		w = uint64(s[i]) | uint64(s[i+left/2])<<8 | uint64(s[len(s)-1])<<16 | 0x2020202020<<24
	default:
		return i
	}
	if needsAttention(w) == 0 {
		return len(s)
	}
	for safeASCII[s[i]] {
		i++
	}
	return i
}

// load64 reads s[i:i+8] as a little-endian word. The compiler merges the
// eight byte loads into one 64-bit load.
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// load32 reads s[i:i+4] as a little-endian word, in one 32-bit load.
func load32(s string, i int) uint64 {
	s = s[i : i+4]
	return uint64(uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24)
}

// Bytes of a word with the same value in every byte.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// needsAttention finds the bytes of w (eight bytes of a string, the first
// in the low byte) that cannot be copied as they are: below 0x20, one of
// " \ < > &, or 0x80 and above (part of a multi-byte rune, which must be
// validated). It returns 0 if there is none; otherwise the lowest byte of
// the result with its high bit set is the first such byte. It costs a dozen
// word operations instead of eight table look-ups.
//
// The trick (SWAR, "SIMD within a register"): subtracting 0x20 from every
// byte sets the high bit of a byte below 0x20, and subtracting 0x01 sets it
// for a zero byte; XOR with a repeated byte first turns "equals c" into "is
// zero". A byte from 0x20 to 0x7f that is not special gives no high bit and
// no borrow, so nothing below the first special byte is marked. Above it, a
// borrow out of the special byte can mark an innocent neighbour (a space
// after a control character, for example), so callers must use only the
// lowest mark, and must not let a special byte they have already handled
// sit below the bytes they test. A byte of 0x80 or more is marked by w
// itself. OR-ing a bit before the XOR folds two characters into one test:
// " (0x22) and & (0x26) differ only in bit 2, < (0x3c) and > (0x3e) only
// in bit 1.
func needsAttention(w uint64) uint64 {
	quoteAmp := (w | 0x04*ones) ^ (0x26 * ones)
	angle := (w | 0x02*ones) ^ (0x3e * ones)
	backslash := w ^ (0x5c * ones)
	// In Go, - and | have the same precedence: the parentheses matter.
	return ((w - 0x20*ones) | (quoteAmp - ones) | (angle - ones) | (backslash - ones) | w) & highs
}

// safeASCII[b] is true for the bytes that appendString copies as they are,
// the bytes that needsAttention does not mark. It finds the position of a
// special byte in a string shorter than a word.
var safeASCII = func() (safe [256]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		safe[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return safe
}()
