//go:build !go1.27

package main

import (
	"io"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Before Go 1.27, encoding/json/v2 is the module it was made from, under
// the same API. jsonv2_std_test.go explains v1Bytes.

var v1Bytes = jsonv2.JoinOptions(
	jsontext.EscapeForHTML(true),
	jsontext.EscapeForJS(true),
	jsontext.AllowInvalidUTF8(true),
	jsonv2.FormatNilSliceAsNull(true),
)

func marshalV2(v any) ([]byte, error)         { return jsonv2.Marshal(v, v1Bytes) }
func marshalWriteV2(w io.Writer, v any) error { return jsonv2.MarshalWrite(w, v, v1Bytes) }
