/* core/timer.h — monotonic wall-clock time for phase timings. */
#ifndef PARAC_CORE_TIMER_H
#define PARAC_CORE_TIMER_H

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds since an arbitrary fixed point; never goes backwards. */
double parac_now_seconds(void);

#ifdef __cplusplus
}
#endif
#endif
