package api

// Limits are what clients may make a server hold, in users and in bytes.
// The limits on one request are the constants in validate.go; these are on
// the sum of all of them.
type Limits struct {
	// MaxUsers is how many users the store may hold.
	MaxUsers int

	// MaxStoredBytes is how much the stored users may cost, counted by
	// cost: a limit on users alone lets one user of 15 KB of JSON and 32
	// roles weigh as much as 600 ordinary ones.
	MaxStoredBytes int64

	// MaxInFlightBytes is how many bytes of list answers may be being built
	// or sent at once. A list takes its size from this before the stage
	// builds it, and gives it back once it is sent; a list that finds too
	// little left is answered with 503. A list larger than the whole limit
	// takes all of it, and so is built alone. POST bodies being read take
	// theirs from the same limit (see create).
	MaxInFlightBytes int64

	// MaxClientBytes is how many of MaxInFlightBytes the requests of one
	// client (one remote address) may hold at once; a request beyond it is
	// answered with 503. Small requests may go a little past it (see
	// smallReservation), so that a client holding its share is still
	// served a user or a small list. A reservation larger than the share
	// counts as the whole share.
	MaxClientBytes int64

	// MaxConns is how many connections the API serves at once; the next
	// ones wait in the kernel's queue until one closes. Each open
	// connection may hold up to connBytes (headers being read, buffers, its
	// goroutine) whatever its client sends, so the cap bounds what
	// connections hold in all.
	MaxConns int

	// MaxClientConns is how many of MaxConns the connections of one client
	// (one remote address) may hold at once: a connection beyond it is
	// answered with 503 and closed as soon as it is accepted, so that one
	// address opening thousands of connections leaves the others room. 0
	// means a quarter of MaxConns (at least 1).
	MaxClientConns int
}

// connShare is what MaxClientConns means: the connections one client may
// hold.
func (l Limits) connShare() int {
	if l.MaxClientConns > 0 {
		return l.MaxClientConns
	}
	return max(1, l.MaxConns/4)
}

// DefaultLimits are the limits of a server started by Main, unless its
// flags say otherwise, and of NewHandler. The 100,000 users are ten times
// the default data set, and would count about 85 MB if they were like it,
// well within the 256 MiB. Users of the largest kind (32 roles of 64
// bytes, a 256-byte name and a 254-byte email, all of characters that JSON
// writes as \u003c) count 512 KB each, so some 500 fit. A stage holds what
// they count at most, plus its pointers and maps; the lists in flight add
// up to 128 MiB, of which one client may hold a quarter, and the 4,096
// connections up to 4,096 x connBytes, 256 MiB, of which one client may
// hold a quarter too. Main gives the garbage collector a soft limit
// (memoryLimit), so that it does not let the heap grow to twice what is
// live.
var DefaultLimits = Limits{
	MaxUsers:         DefaultMaxUsers,
	MaxStoredBytes:   256 << 20,
	MaxInFlightBytes: 128 << 20,
	MaxClientBytes:   128 << 20 / 4,
	MaxConns:         4096,
}

// connBytes is the most that one open connection can make the server hold
// while its request arrives, rounded up: the header bytes, read into
// net/http's 4 KiB buffer and copied into the header map (MaxHeaderBytes
// twice), the 4 KiB buffer it writes through, and the goroutine serving it,
// whose stack starts at 8 KiB and grows while it parses. A body being read
// is counted against MaxInFlightBytes instead.
const connBytes = 64 << 10

// programBytes is what a stage holds beside what the limits count: its
// code, the runtime, and the pointers and maps of its index.
const programBytes = 64 << 20

// memoryLimit is the soft limit given to the garbage collector: what the
// stored users and the lists and bodies in flight count, and the program.
// Without it the collector lets the heap grow to twice what is live before
// it collects, so a stage that keeps every role's JSON (stage 6, the
// floor) could hold twice MaxStoredBytes and the lists in flight twice
// over; with it, the heap is collected as it nears what those count. The
// connections' own memory (connBytes each) is left out: it is live only
// while requests arrive. It is a soft limit: when more is live, as when
// the store is full and every connection sends headers, the collector
// runs more often (using at most half of the CPU) rather than letting the
// heap grow past twice what is live, and nothing fails.
func memoryLimit(limits Limits) int64 {
	return limits.MaxStoredBytes + limits.MaxInFlightBytes + programBytes
}

// cost is what a user whose JSON is encoded bytes long, holding roles
// roles, counts against MaxStoredBytes: the JSON once, for the user
// itself, and once per role, for the role's list, and roleBytes per role.
// That is the most any stage keeps: stage 0 keeps the user alone, the later
// stages keep it once and point to it from every role (stage 5 beside its
// JSON), and stage 6 and the floor keep its JSON in each role's list.
// Counting the most for every stage keeps the same requests refused in
// every stage.
func cost(encoded, roles int) int64 { return int64(encoded)*int64(1+roles) + int64(roles)*roleBytes }

// roleBytes is what one role of a user makes a stage hold beside the JSON:
// its name and place in the user's roles, the pointer to the user in the
// role's list and, for a role of few users, its share of the role's map
// entry and list. Users with many short roles, each their own or shared by
// two, would otherwise make a stage that keeps each role's JSON (stage 6)
// hold more than memoryLimit.
const roleBytes = 128
