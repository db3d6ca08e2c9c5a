package user

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"testing"
	"unicode/utf8"
)

// defaultDigest pins the default data set. If a change to the generator is
// intended, every README figure is stale too: update this and re-measure.
const defaultDigest = "6631a40c7feda05e450199360a05c926cc175ad558ce264ce9a2f74cf4e1290e"

func TestDefaultDataSetIsPinned(t *testing.T) {
	users := MustGenerate(DefaultCount, DefaultSeed)
	body, err := json.Marshal(users)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	if got := hex.EncodeToString(sum[:]); got != defaultDigest {
		t.Errorf("digest of the default data set = %s, want %s", got, defaultDigest)
	}
}

func TestFixedResultSizesAtEverySize(t *testing.T) {
	for _, count := range []int{MinCount, DefaultCount, 100_000} {
		users := MustGenerate(count, DefaultSeed)
		if len(users) != count {
			t.Fatalf("count %d: got %d users", count, len(users))
		}
		admins, editors, roles := 0, 0, 0
		for i := range users {
			u := &users[i]
			if u.HasRole(RoleAdmin) {
				admins++
			}
			if u.HasRole(RoleEditor) {
				editors++
			}
			roles += len(u.Roles)
		}
		if admins != AdminCount || editors != EditorCount {
			t.Errorf("count %d: %d admins and %d editors, want %d and %d",
				count, admins, editors, AdminCount, EditorCount)
		}
		// At 1,000 users every user is an editor, so only the default size
		// is held to the case study's five roles per user.
		if avg := float64(roles) / float64(count); count == DefaultCount && (avg < 4.5 || avg > 5.5) {
			t.Errorf("count %d: %.2f roles per user on average, want about 5", count, avg)
		}
	}
}

func TestGeneratedUsersAreWellFormed(t *testing.T) {
	users := MustGenerate(DefaultCount, DefaultSeed)
	distinctRoles := map[string]int{}
	var korean, escaped bool
	for i := range users {
		u := &users[i]
		if i > 0 && users[i-1].ID >= u.ID {
			t.Fatalf("ids out of order at %d: %q then %q", i, users[i-1].ID, u.ID)
		}
		if len(u.Email) <= 15 {
			t.Errorf("%s: email %q is not longer than 15 bytes", u.ID, u.Email)
		}
		sorted := slices.Clone(u.Roles)
		slices.Sort(sorted)
		if len(slices.Compact(sorted)) != len(u.Roles) {
			t.Errorf("%s: repeated role in %q", u.ID, u.Roles)
		}
		for _, r := range u.Roles {
			distinctRoles[r]++
		}
		for _, c := range u.Name {
			switch {
			case c >= 0xAC00 && c <= 0xD7A3:
				korean = true
			case c == '"' || c == '<' || c == '\u2028' || c < 0x20:
				escaped = true
			}
		}
		if !utf8.ValidString(u.Name) {
			t.Errorf("%s: name %q is not valid UTF-8", u.ID, u.Name)
		}
	}
	if !korean || !escaped {
		t.Errorf("names lack Korean (%v) or characters JSON escapes (%v)", korean, escaped)
	}
	rare := 0
	for _, n := range distinctRoles {
		if n < 10 {
			rare++
		}
	}
	if rare < 100 {
		t.Errorf("only %d roles are held by fewer than 10 users; want a long tail", rare)
	}
}

func TestGenerateRejectsSizesOutOfRange(t *testing.T) {
	for _, n := range []int{-1, 0, MinCount - 1, MaxCount + 1} {
		if _, err := Generate(n, 1); err == nil {
			t.Errorf("Generate(%d) succeeded, want an error", n)
		}
	}
}

func TestSameSeedSameUsersOtherSeedOtherUsers(t *testing.T) {
	a := MustGenerate(MinCount, 7)
	b := MustGenerate(MinCount, 7)
	c := MustGenerate(MinCount, 8)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	jc, _ := json.Marshal(c)
	if string(ja) != string(jb) {
		t.Error("the same seed gave different users")
	}
	if string(ja) == string(jc) {
		t.Error("different seeds gave the same users")
	}
}
