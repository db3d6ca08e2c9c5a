package main

import "example.com/userperf/common/user"

// encodeUsers returns a role's users as encoding/json.Marshal would: the
// blocks' bytes, the first comma made "[", in a reused body (buffer.go).
func encodeUsers(blocks roleList) []byte {
	if len(blocks) == 0 {
		return append(getBuffer(len("[]")), "[]"...)
	}
	size := len("]")
	for _, b := range blocks {
		size += len(b.json)
	}
	body := getBuffer(size)
	for _, b := range blocks {
		body = append(body, b.json...)
	}
	body[0] = '['
	return append(body, ']')
}

// appendUser appends u as encoding/json.Marshal writes a user.User: fields
// in declaration order under their json tags, no spaces, nil Roles as null.
// The names are written by hand, so a change to user.User must be made here
// too; the tests compare the output with encoding/json to catch one. The
// quotes of each string belong to the constant pieces around it.
func appendUser(dst []byte, u *user.User) []byte {
	dst = append(dst, `{"id":"`...)
	dst = appendEscaped(dst, u.ID)
	dst = append(dst, `","name":"`...)
	dst = appendEscaped(dst, u.Name)
	dst = append(dst, `","email":"`...)
	dst = appendEscaped(dst, u.Email)
	switch {
	case u.Roles == nil:
		return append(dst, `","roles":null}`...)
	case len(u.Roles) == 0:
		return append(dst, `","roles":[]}`...)
	}
	dst = append(dst, `","roles":["`...)
	for i, r := range u.Roles {
		if i > 0 {
			dst = append(dst, `","`...)
		}
		if len(r) >= 4 && len(r) <= 8 && !hasSpecialByte(load32(r, 0)|load32(r, len(r)-4)<<32) {
			dst = append(dst, r...) // most roles: tested here, without two calls
			continue
		}
		dst = appendEscaped(dst, r)
	}
	return append(dst, `"]}`...)
}
