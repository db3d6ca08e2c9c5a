package bench

import (
	"testing"

	"example.com/userperf/common/user"
)

// TestShapeUsers checks what a Shape's users promise: ids in ascending
// order after every generated id, and roles held by exactly Holders users
// and by no generated user.
func TestShapeUsers(t *testing.T) {
	generated := map[string]bool{}
	users := user.MustGenerate(user.DefaultCount, user.DefaultSeed)
	for _, u := range users {
		for _, r := range u.Roles {
			generated[r] = true
		}
	}
	for _, shape := range []Shape{{Roles: 4, Holders: 1}, {Roles: 32, Holders: 2}} {
		holders := map[string]int{}
		prev := users[len(users)-1].ID
		const count = 2_000
		for n := range count {
			u := shape.User(n)
			if u.ID <= prev {
				t.Fatalf("%s: user %d has id %s, not after %s", shape.Name(), n, u.ID, prev)
			}
			prev = u.ID
			for _, r := range u.Roles {
				if generated[r] {
					t.Fatalf("%s: user %d holds %q, a role of the generated users", shape.Name(), n, r)
				}
				holders[r]++
			}
		}
		for r, n := range holders {
			if n != shape.Holders {
				t.Fatalf("%s: role %q is held by %d users, want %d", shape.Name(), r, n, shape.Holders)
			}
		}
		if want := count / shape.Holders * shape.Roles; len(holders) != want {
			t.Errorf("%s: %d users hold %d roles, want %d", shape.Name(), count, len(holders), want)
		}
	}
}
