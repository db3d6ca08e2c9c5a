package guard

// Limits are what clients may make a server hold, in users and in bytes.
// The limits on one request are constants of package api; these are on the
// sum of all of them.
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
	// theirs from the same limit.
	MaxInFlightBytes int64

	// MaxClientBytes is how many of MaxInFlightBytes the requests of one
	// client (one remote host) may hold at once; a request beyond it is
	// answered with 503. Small requests may go a little past it (see
	// SmallReservation), so that a client holding MaxClientBytes is still
	// served a user or a small list. A reservation larger than
	// MaxClientBytes counts as MaxClientBytes.
	MaxClientBytes int64

	// MaxConns is how many connections the API serves at once; the next
	// ones wait in the kernel's queue until one closes. The last eighth of
	// them (at least one) is kept for clients that hold none, so that a
	// few clients at their MaxClientConns cannot lock the others out. Each open
	// connection may hold up to ConnBytes (headers being read, buffers, its
	// goroutine) whatever its client sends, so the cap bounds what
	// connections hold in all.
	MaxConns int

	// MaxClientConns is how many of MaxConns the connections of one client
	// (one remote host) may hold at once: a connection beyond it is
	// answered with 503 and closed as soon as it is accepted, so that one
	// client opening thousands of connections leaves the others room.
	MaxClientConns int

	// ReserveConns is how many of MaxConns only an address that holds no
	// connection may take. 0 means the last eighth (at least one); a
	// server that knows how many addresses it serves (the workshop's room)
	// keeps one for each, so that no number of them can lock one out.
	ReserveConns int
}

// ConnReserve is how many of MaxConns only a client that holds no
// connection may take.
func (l Limits) ConnReserve() int {
	if l.ReserveConns > 0 {
		return l.ReserveConns
	}
	return max(1, l.MaxConns/8)
}

// DefaultMaxUsers is how many users a server started by api.Main holds at
// most unless its -max-users flag says otherwise: ten times the default
// data set.
const DefaultMaxUsers = 100_000

// DefaultLimits are the limits of a server started by api.Main, unless its
// flags say otherwise, and of api.NewHandler. Users of the largest kind (32
// roles of 64 bytes, a 256-byte name and a 254-byte email, all of
// characters that JSON writes as \u003c) count 512 KB each, so some 500
// fit. A stage holds what the users count at most, plus its pointers and
// maps; the lists in flight add up to MaxInFlightBytes, of which one client
// may hold a quarter, and the connections up to MaxConns x ConnBytes, of
// which one client may hold a quarter too. Main gives the garbage collector
// a soft limit (MemoryLimit), so that it does not let the heap grow to
// twice what is live.
var DefaultLimits = Limits{
	MaxUsers:         DefaultMaxUsers,
	MaxStoredBytes:   256 << 20,
	MaxInFlightBytes: 128 << 20,
	MaxClientBytes:   128 << 20 / 4,
	MaxConns:         4096,
	MaxClientConns:   4096 / 4,
}

// ConnBytes is the most that one open connection can make the server hold
// while its request arrives, rounded up: the header bytes, read into
// net/http's 4 KiB buffer and copied into the header map (MaxHeaderBytes
// twice), the 4 KiB buffer it writes through, and the goroutine serving it,
// whose stack starts at 8 KiB and grows while it parses. A body being read
// is counted against MaxInFlightBytes instead.
const ConnBytes = 64 << 10

// ProgramBytes is what a stage holds beside what the limits count: its
// code, the runtime, and the pointers and maps of its index.
const ProgramBytes = 64 << 20

// MemoryLimit is the soft limit given to the garbage collector: what the
// stored users and the lists and bodies in flight count, and the program.
// Without it the collector lets the heap grow to twice what is live before
// it collects, so a stage that keeps every role's JSON (stage 6, the
// floor) could hold twice MaxStoredBytes and the lists in flight twice
// over; with it, the heap is collected as it nears what those count. The
// connections' own memory (ConnBytes each) is left out: it is live only
// while requests arrive. It is a soft limit: when more is live, as when
// the store is full and every connection sends headers, the collector
// runs more often (using at most half of the CPU) rather than letting the
// heap grow past twice what is live, and nothing fails.
func MemoryLimit(limits Limits) int64 {
	return limits.MaxStoredBytes + limits.MaxInFlightBytes + ProgramBytes
}

// PeakRSS is the most resident memory a stage reaches under limits, as
// the kernel counts it: MemoryLimit, and one list's worth of the bytes in
// flight more. A stage that builds a list allocates its bytes at once, and
// the collector, which the soft limit triggers then, frees the previous
// list only after: for a moment both are resident. A list takes at most
// MaxInFlightBytes.
func PeakRSS(limits Limits) int64 { return MemoryLimit(limits) + limits.MaxInFlightBytes }

// cost is what a user whose JSON is encoded bytes long, holding roles
// roles, counts against MaxStoredBytes: the JSON once, for the user
// itself, and once per role, for the role's list, and RoleBytes per role.
// That is the most any stage keeps: stage 0 keeps the user alone, the later
// stages keep it once and point to it from every role (stage 5 beside its
// JSON), and stage 6 and the floor keep its JSON in each role's list.
// Counting the most for every stage keeps the same requests refused in
// every stage.
func cost(encoded, roles int) int64 { return int64(encoded)*int64(1+roles) + int64(roles)*RoleBytes }

// RoleBytes is what one role of a user makes a stage hold beside the JSON:
// its name and place in the user's roles, the pointer to the user in the
// role's list and, for a role of few users, its share of the role's map
// entry and list. Users with many short roles, each their own or shared by
// two, would otherwise make a stage that keeps each role's JSON (stage 6)
// hold more than MemoryLimit.
const RoleBytes = 128
