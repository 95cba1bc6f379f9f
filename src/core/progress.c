/* core/progress.c — "label [#####     ]  52%  3.1 s" redrawn in place. */
#include "core/progress.h"

#include <stdio.h>
#include <unistd.h>

#include "core/timer.h"

#define BAR_WIDTH 30

void parac_progress_start(parac_progress_bar *bar, const char *label, int enabled)
{
    bar->label = label ? label : "";
    bar->active = enabled && isatty(fileno(stderr));
    bar->started = parac_now_seconds();
    bar->last_draw = 0.0;
    bar->drawn = 0;
}

int parac_progress_update(void *user_data, uint64_t done, uint64_t total)
{
    parac_progress_bar *bar = user_data;
    double now, fraction;
    char cells[BAR_WIDTH + 1];
    int filled;
    if (!bar || !bar->active) return 0;
    if (total && done >= total) {
        parac_progress_finish(bar);
        return 0;
    }
    now = parac_now_seconds();
    if (bar->drawn && now - bar->last_draw < 0.1 && done < total) return 0;
    fraction = total ? (double)done / (double)total : 0.0;
    if (fraction > 1.0) fraction = 1.0;
    filled = (int)(fraction * BAR_WIDTH);
    for (int i = 0; i < BAR_WIDTH; i++) cells[i] = i < filled ? '#' : ' ';
    cells[BAR_WIDTH] = '\0';
    fprintf(stderr, "\r%s [%s] %3d%% %6.1f s", bar->label, cells, (int)(fraction * 100.0), now - bar->started);
    fflush(stderr);
    bar->last_draw = now;
    bar->drawn = 1;
    return 0;
}

void parac_progress_finish(parac_progress_bar *bar)
{
    if (!bar || !bar->active || !bar->drawn) return;
    fprintf(stderr, "\r%*s\r", BAR_WIDTH + 40, "");
    fflush(stderr);
    bar->drawn = 0;
}
