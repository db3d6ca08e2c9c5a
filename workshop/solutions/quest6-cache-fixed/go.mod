module example.com/userperf/workshop/solutions/quest6-cache-fixed

go 1.26

require example.com/userperf/common v0.0.0

// origin: workshop/quest6-cache (the stage this module started from; scripts/check reads this line)

// This module is built inside the repository's workspace (go.work at the root),
// from any folder of the repository. It keeps no go.sum of its own, so it does
// not build alone with GOWORK=off. The replace says where the shared module is:
// it is not published anywhere to download.
replace example.com/userperf/common => ../../../common
