package main

import (
	"bytes"
	"encoding/json"

	"example.com/userperf/common/user"
)

// encodeUsers returns the JSON array of users (a read-only view of the
// store) as encoding/json.Marshal does. The users are still encoded by
// encoding/json, as in stage 2; what changes is where the bytes go: into a
// body reserved for these users and reused (buffer.go), and, for a result
// of parallelMin users or more, in chunks on several cores (parallel.go).
func encodeUsers(users []*user.User) []byte {
	body := getBuffer(reservedSize(users))
	if parallelMin > 0 && len(users) >= parallelMin {
		return appendUsersParallel(body, users)
	}
	return append(appendUserList(append(body, '['), users), ']')
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

// appendUserList appends users separated by commas, without the brackets,
// so that chunks of one array can be encoded apart and joined.
//
// json.Marshal cannot write into dst: it returns a new slice for every
// user. A json.Encoder writes to any io.Writer, here a bytes.Buffer that
// starts as dst. It ends every value with a newline, which is the one
// newline in its output (a newline inside a string is escaped as \n), so
// that byte is overwritten with the comma that separates users, and the
// last one is cut.
func appendUserList(dst []byte, users []*user.User) []byte {
	if len(users) == 0 {
		return dst
	}
	buf := bytes.NewBuffer(dst)
	enc := json.NewEncoder(buf)
	for _, u := range users {
		if err := enc.Encode(u); err != nil {
			panic(err) // unreachable: a User has no type that encoding/json rejects
		}
		buf.Bytes()[buf.Len()-1] = ','
	}
	buf.Truncate(buf.Len() - 1)
	return buf.Bytes()
}
