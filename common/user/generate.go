package user

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Sizes and fixed result sizes of the generated data set.
const (
	DefaultCount = 10_000    // users generated when nobody asks for another number
	MinCount     = 1_000     // smallest data set; it must still hold every admin and editor
	MaxCount     = 1_000_000 // largest data set; ids have seven digits
	DefaultSeed  = 2024      // seed of the data set that every README figure uses

	// The two roles held by as many users at every size, so that a scaling
	// run changes the number of users and nothing else.
	RoleAdmin   = "admin"
	AdminCount  = 100
	RoleEditor  = "editor"
	EditorCount = 1_000
)

// commonRoles are drawn by weight, three to six per user; two are Korean,
// so that the lookup and the encoder see non-ASCII roles.
var commonRoles = []struct {
	name   string
	weight int
}{
	{"viewer", 40}, {"member", 30}, {"reader", 25}, {"commenter", 20},
	{"reporter", 12}, {"support", 10}, {"developer", 10}, {"billing", 8},
	{"analyst", 8}, {"designer", 6}, {"reviewer", 6}, {"tester", 6},
	{"operator", 5}, {"manager", 4}, {"auditor", 3}, {"moderator", 3},
	{"guest", 3}, {"연구원", 2}, {"운영자", 2}, {"owner", 1},
}

// tailRoles is the long tail, team-0000 to team-1999, low numbers far more
// common; half of the users get one.
const tailRoles = 2000

var familyNames = []struct{ hangul, latin string }{
	{"김", "kim"}, {"이", "lee"}, {"박", "park"}, {"최", "choi"}, {"정", "jung"},
	{"강", "kang"}, {"조", "cho"}, {"윤", "yoon"}, {"장", "jang"}, {"임", "lim"},
	{"한", "han"}, {"오", "oh"}, {"서", "seo"}, {"신", "shin"}, {"권", "kwon"},
}

var givenNames = []struct{ hangul, latin string }{
	{"민준", "minjun"}, {"서연", "seoyeon"}, {"도윤", "doyun"}, {"하은", "haeun"},
	{"지호", "jiho"}, {"수아", "sua"}, {"예준", "yejun"}, {"지우", "jiwoo"},
	{"시우", "siwoo"}, {"서윤", "seoyun"}, {"주원", "juwon"}, {"하윤", "hayun"},
	{"Alice", "alice"}, {"Daniel", "daniel"}, {"Grace", "grace"}, {"Olivia", "olivia"},
	{"Noah", "noah"}, {"Emma", "emma"}, {"Lucas", "lucas"}, {"Sofia", "sofia"},
}

// trickyNames hold every class of character that encoding/json escapes or
// passes through specially.
var trickyNames = []string{
	`Jae "JJ" Park`,           // quotes
	`Lee <admin> & Co`,        // HTML-sensitive characters
	`C:\Users\kim`,            // backslashes
	"Tab\tand\nnewline",       // control characters
	"Line\u2028Para\u2029End", // the two JavaScript line terminators
	"Zoë Ünal-Müller",         // Latin with diacritics
	"최 '지우' 😀",                // Hangul, apostrophe, an emoji outside the BMP
	"Bell\x07 and DEL\x7f",    // a rare control character and DEL (not escaped)
	"O'Brien </script>",       // a closing tag
	"Ａｌｉｃｅ　全角",                // full-width forms
}

// Generate returns count users derived from seed, the same on every
// machine and Go version, in ascending id order: exactly AdminCount hold
// RoleAdmin and EditorCount RoleEditor, and the rest of the roles average
// about five per user, with a long tail of rare ones.
func Generate(count int, seed uint64) ([]User, error) {
	if count < MinCount || count > MaxCount {
		return nil, fmt.Errorf("user count %d is outside [%d, %d]", count, MinCount, MaxCount)
	}
	rng := newSplitMix(seed)
	admins := rng.sample(count, AdminCount)
	editors := rng.sample(count, EditorCount)

	totalWeight := 0
	for _, r := range commonRoles {
		totalWeight += r.weight
	}

	users := make([]User, count)
	for i := range users {
		roles := make([]string, 0, 8)
		for n := 3 + rng.intN(4); len(roles) < n; {
			if r := pickWeighted(rng, totalWeight); !slices.Contains(roles, r) {
				roles = append(roles, r)
			}
		}
		if rng.intN(2) == 0 {
			// Cubing a uniform number piles the draws near zero: a long tail.
			u := float64(rng.next()>>11) / (1 << 53)
			roles = append(roles, fmt.Sprintf("team-%04d", int(u*u*u*tailRoles)))
		}
		if admins[i] {
			roles = append(roles, RoleAdmin)
		}
		if editors[i] {
			roles = append(roles, RoleEditor)
		}
		rng.shuffle(roles)
		users[i] = newUser(rng, i, roles)
	}
	return users, nil
}

// MustGenerate is Generate for counts known to be valid; it panics otherwise.
func MustGenerate(count int, seed uint64) []User {
	users, err := Generate(count, seed)
	if err != nil {
		panic(err)
	}
	return users
}

// FormatID is the id of the i-th generated user, zero-padded so that the
// string order of ids is their numeric order.
func FormatID(i int) string {
	return fmt.Sprintf("u%07d", i)
}

func newUser(rng *splitMix, i int, roles []string) User {
	family := familyNames[rng.intN(len(familyNames))]
	given := givenNames[rng.intN(len(givenNames))]
	var name string
	switch k := rng.intN(20); {
	case k == 0:
		name = trickyNames[rng.intN(len(trickyNames))]
	case given.hangul[0] < 0x80: // a Latin given name: Western order
		name = given.hangul + " " + strings.ToUpper(family.latin[:1]) + family.latin[1:]
	default:
		name = family.hangul + given.hangul
	}
	email := given.latin + "." + family.latin + "." + strconv.Itoa(i) + "@example.com"
	return User{ID: FormatID(i), Name: name, Email: email, Roles: roles}
}

func pickWeighted(rng *splitMix, totalWeight int) string {
	x := rng.intN(totalWeight)
	for _, r := range commonRoles {
		if x < r.weight {
			return r.name
		}
		x -= r.weight
	}
	panic("unreachable: weights do not add up")
}
