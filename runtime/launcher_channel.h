// runtime/launcher_channel.h - tells tdist-run how far this PE's runtime got, so that a PE that
// exits without finalize while its peers wait for it ends the job at once, instead of leaving
// them to their wait deadline (tools/tdist-run/status_channel.h has the launcher's side).
//
// tdist-run hands every PE a socket, numbered by TDIST_STATUS_FD; without the variable (a program
// started another way) both calls do nothing. Neither ever fails init or finalize: a word that
// cannot be sent costs one message on stderr, and the launcher's watch over this PE.
#pragma once

namespace tdist::runtime {

// Call once init has succeeded: sends 'I'.
void reportInitialized();
// Call once finalize has completed (or when the PE leaves the job in order, as global_exit
// does): sends 'F'.
void reportFinalized();
// Call just before this process ends itself with a failure status (a wait past its deadline):
// sends 'E' and the status byte. The PE's exit can take a while (a GPU context to tear down)
// while its peers fail of it at once (PE 0's store closes with it); the launcher takes the PE
// that said so first as the job's first cause, whichever exit it sees first.
void reportEnding(int status);

}  // namespace tdist::runtime
