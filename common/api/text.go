package api

import (
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Why a JSON string cannot be stored as sent. encoding/json would replace
// each offending byte or escape with U+FFFD, so the user stored would not be
// the user sent; the API refuses the request instead.
var (
	errNotUTF8         = errors.New("is not valid UTF-8")
	errLoneSurrogate   = errors.New(`holds an unpaired surrogate escape (\uD800 to \uDFFF), which is not a character`)
	errMalformedEscape = errors.New("holds a malformed escape")
)

// checkText reports why the JSON string literal lit, quotes included, would
// not decode to exactly the text it spells, or returns nil.
func checkText(lit []byte) error {
	if !utf8.Valid(lit) {
		return errNotUTF8
	}
	for i := 0; i < len(lit); i++ {
		if lit[i] != '\\' {
			continue
		}
		i++ // the escaped byte
		if i >= len(lit) || lit[i] != 'u' {
			continue
		}
		r, ok := hexRune(lit, i+1)
		if !ok {
			return errMalformedEscape
		}
		i += 4 // the last hex digit
		if !utf16.IsSurrogate(r) {
			continue
		}
		// A high surrogate must be followed at once by an escaped low one.
		if r < 0xDC00 && i+2 < len(lit) && lit[i+1] == '\\' && lit[i+2] == 'u' {
			if low, ok := hexRune(lit, i+3); ok && 0xDC00 <= low && low <= 0xDFFF {
				i += 6
				continue
			}
		}
		return errLoneSurrogate
	}
	return nil
}

// hexRune returns the rune spelled by the four hex digits of lit at from.
func hexRune(lit []byte, from int) (rune, bool) {
	if from+4 > len(lit) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(lit[from:from+4]), 16, 32)
	return rune(n), err == nil
}
