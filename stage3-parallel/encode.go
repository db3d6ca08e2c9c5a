package main

import "example.com/userperf/common/user"

// encodeUsers returns the JSON array of users, byte for byte what
// encoding/json.Marshal gives for them. Three changes from stage2, each
// motivated by stage2's profile (see README.md):
//
//   - the body comes from a pool of buffers (buffer.go), sized from the
//     measured average size of a user, so it is neither allocated nor
//     regrown in the common case; Store.Recycle hands it back;
//   - every user is appended straight into the body (appendUser), with no
//     reflection and no temporary slice per user, and strings are escaped
//     eight bytes at a time (escape.go);
//   - a result of parallelMin users or more is split into chunks that idle
//     workers encode at the same time (parallel.go).
func encodeUsers(users []*user.User) []byte {
	body := getBuffer(sizes.estimate(len(users)))
	if len(users) >= parallelMin {
		body = appendUsersParallel(body, users)
	} else {
		body = appendUsers(body, users)
	}
	sizes.observe(len(users), len(body))
	return body
}

// appendUsers appends the JSON array of users to dst.
func appendUsers(dst []byte, users []*user.User) []byte {
	dst = append(dst, '[')
	dst = appendUserList(dst, users)
	return append(dst, ']')
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
// fields in declaration order under their json tag names, no spaces, and a
// nil Roles as null. The field names are written here by hand, so a change
// to user.User must be made here too; the tests compare the output with
// encoding/json to catch a forgotten one. The quotes of the strings are
// part of the constant pieces between them, which saves two appends per
// string.
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
		// Most roles are four to eight plain bytes: test them here, as
		// appendEscaped would, and save a call per role (measured: some
		// percent of the whole encoding, as users have about five roles).
		if len(r) >= 4 && len(r) <= 8 && needsAttention(load32(r, 0)|load32(r, len(r)-4)<<32) == 0 {
			dst = append(dst, r...)
			continue
		}
		dst = appendEscaped(dst, r)
	}
	return append(dst, `"]}`...)
}
