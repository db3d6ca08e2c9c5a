module example.com/userperf/stage4-materialized

go 1.26

require example.com/userperf/common v0.0.0

// The stages are built inside this repository's workspace; the replace also lets
// one stage be built on its own with GOWORK=off.
replace example.com/userperf/common => ../common
