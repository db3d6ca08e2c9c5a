//go:build go1.27

package main

import (
	"io"

	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
)

// From Go 1.27 on, encoding/json/v2 is in the standard library.
// jsonv2_module_test.go holds the same lines for Go 1.26, over the module
// that the standard library's package was made from.

// v1Bytes are the options under which encoding/json/v2 writes this API's
// bytes, which are encoding/json's (v1): v2 leaves all four off by default.
// Field order, tags and the escapes of control characters need none.
var v1Bytes = jsonv2.JoinOptions(
	jsontext.EscapeForHTML(true),      // <, > and & as \u003c, \u003e and \u0026
	jsontext.EscapeForJS(true),        // U+2028 and U+2029 as \u2028 and \u2029
	jsontext.AllowInvalidUTF8(true),   // invalid UTF-8 as U+FFFD (the contract), not an error
	jsonv2.FormatNilSliceAsNull(true), // nil Roles as null, not []
)

func marshalV2(v any) ([]byte, error)         { return jsonv2.Marshal(v, v1Bytes) }
func marshalWriteV2(w io.Writer, v any) error { return jsonv2.MarshalWrite(w, v, v1Bytes) }
