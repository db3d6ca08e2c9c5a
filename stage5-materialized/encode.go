package main

import "example.com/userperf/common/user"

// encodeUsers returns the JSON array of users (a read-only view of the
// store) as encoding/json.Marshal does, into a body reserved for exactly
// its size and reused (buffer.go). Each user was encoded when it was
// written (see stored), so a read only copies those bytes, with a comma
// between two users.
func encodeUsers(users []*stored) []byte {
	body := append(getBuffer(bodySize(users)), '[')
	for i, u := range users {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, u.json...)
	}
	return append(body, ']')
}

// bodySize is the exact size of the body of users: their JSON, the
// commas between them and the brackets.
func bodySize(users []*stored) int {
	size := len("[]")
	for i, u := range users {
		if i > 0 {
			size += len(",")
		}
		size += len(u.json)
	}
	return size
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
