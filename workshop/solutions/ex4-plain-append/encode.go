package main

import "example.com/userperf/common/user"

// encodeUsers returns the JSON array of users (a read-only view of the
// store) as encoding/json.Marshal does, into a body reserved for these users
// and reused (buffer.go), large results in chunks on several cores
// (parallel.go), all as in stage 3. What changes is the encoder: appendUser,
// written by hand, instead of encoding/json's reflection.
func encodeUsers(users []*user.User) []byte {
	body := getBuffer(reservedSize(users))
	if parallelMin > 0 && len(users) >= parallelMin {
		return appendUsersParallel(body, users)
	}
	return append(appendUserList(append(body, '['), users), ']')
}

// reservedSize is what the body of users reserves: their size as a JSON
// array if no string needed escaping, plus a sixteenth for the few that do.
// It is an estimate: if it falls short, append grows the body.
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

// appendUserList appends users separated by commas, without the brackets,
// so that chunks of one array can be encoded apart and joined.
func appendUserList(dst []byte, users []*user.User) []byte {
	for i, u := range users {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendUser(dst, u)
	}
	return dst
}

// appendUser appends u as encoding/json.Marshal writes a user.User: the
// fields in declaration order under their json tags, no spaces, nil Roles as
// null. The field names are written here by hand, so a change to user.User
// must be made here too; encode_test.go compares with encoding/json.
func appendUser(dst []byte, u *user.User) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendString(dst, u.ID)
	dst = append(dst, `,"name":`...)
	dst = appendString(dst, u.Name)
	dst = append(dst, `,"email":`...)
	dst = appendString(dst, u.Email)
	dst = append(dst, `,"roles":`...)
	if u.Roles == nil {
		return append(dst, `null}`...)
	}
	dst = append(dst, '[')
	for i, r := range u.Roles {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, r)
	}
	return append(dst, `]}`...)
}
