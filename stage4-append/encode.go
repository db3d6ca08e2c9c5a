package main

import "example.com/userperf/common/user"

// encodeUsers returns the JSON array of users (a read-only view of the
// store) as encoding/json.Marshal does, into a body reserved for these users
// and reused (buffer.go), as in stage 3. What changes is the encoder:
// appendUser, hand-written, instead of encoding/json. Whether stage 3's
// parallel chunks still pay over this encoder is a question of stage 4's
// chapter, which stage4-append's BenchmarkParallel answers.
func encodeUsers(users []*user.User) []byte {
	return append(appendUserList(append(getBuffer(reservedSize(users)), '['), users), ']')
}

// reservedSize is what the body of users reserves: their size as a JSON
// array if no string needed escaping, plus a sixteenth for the few that do.
// It is an estimate: if it falls short, append grows the body. It depends
// on these users alone, so no other request or client can make it reserve
// more.
func reservedSize(users []*user.User) int {
	const perUser = len(`{"id":"","name":"","email":"","roles":[]},`)
	size := len("[]") + len(users)*perUser
	for _, u := range users {
		size += len(u.ID) + len(u.Name) + len(u.Email)
		for _, r := range u.Roles {
			size += len(r) + len(`"",`)
		}
	}
	return size + size/16
}

// appendUserList appends users separated by commas, without the brackets.
func appendUserList(dst []byte, users []*user.User) []byte {
	for i, u := range users {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendUser(dst, u)
	}
	return dst
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
