// Package user defines the record that every stage serves and the
// deterministic generator that fills a stage with test data.
package user

import "slices"

// User is one account of the API. Its encoding/json.Marshal form is the
// byte-for-byte contract of GET /users?role=R.
type User struct {
	ID    string   `json:"id"`
	Name  string   `json:"name"`
	Email string   `json:"email"`
	Roles []string `json:"roles"`
}

// HasRole reports whether u holds role.
func (u *User) HasRole(role string) bool { return slices.Contains(u.Roles, role) }
