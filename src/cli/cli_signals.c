/* cli/cli_signals.c — Ctrl-C and SIGTERM: the first one asks the run to stop cleanly, a second
 * one kills at once.
 *
 * The handler only sets a flag (async-signal-safe); the CLI's progress callback reads it and
 * returns non-zero, the library stops at its next checkpoint with PARAC_ERR_CANCELLED, the
 * command removes its temporary outputs and exits 130. A second signal means "now": the handler
 * removes the temporary output files still registered (unlink is async-signal-safe), restores the
 * default action and raises the signal again, so the process dies as the user asked and leaves no
 * half-written file behind. */
#include "cli/cli.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#define TRACKED_MAX 16
#define TRACKED_PATH_MAX 4096

static volatile sig_atomic_t interrupted_by = 0;
static char tracked_paths[TRACKED_MAX][TRACKED_PATH_MAX];
static volatile sig_atomic_t tracked_used[TRACKED_MAX];

static void on_signal(int signal_number)
{
    struct sigaction default_action;
    if (!interrupted_by) {
        interrupted_by = signal_number;
        return;
    }
    for (int i = 0; i < TRACKED_MAX; i++)
        if (tracked_used[i]) unlink(tracked_paths[i]);
    memset(&default_action, 0, sizeof default_action);
    default_action.sa_handler = SIG_DFL;
    sigemptyset(&default_action.sa_mask);
    sigaction(signal_number, &default_action, NULL);
    raise(signal_number);
}

void cli_signals_install(void)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART; /* reads and writes go on; the checkpoints see the flag */
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
}

int cli_interrupted(void)
{
    return interrupted_by != 0;
}

int cli_signals_track(const char *path)
{
    size_t length = strlen(path);
    if (length >= TRACKED_PATH_MAX) return -1;
    for (int i = 0; i < TRACKED_MAX; i++) {
        if (tracked_used[i]) continue;
        memcpy(tracked_paths[i], path, length + 1);
        atomic_signal_fence(memory_order_seq_cst); /* the path is complete before the handler may read it */
        tracked_used[i] = 1;
        return i;
    }
    return -1;
}

void cli_signals_untrack(int slot)
{
    if (slot >= 0 && slot < TRACKED_MAX) tracked_used[slot] = 0;
}
