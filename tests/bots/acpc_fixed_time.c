/* Linked into the ACPC package's example_player by tests/protocols/test_acpc_dealer.py
 * (with -Wl,--wrap=gettimeofday): the player seeds its random numbers from the
 * time of day, and with this it seeds them the same in every run, so that the
 * same states get the same answers under the ACPC dealer and under the arena. */

#include <sys/time.h>

int __wrap_gettimeofday(struct timeval *tv, void *tz);

int __wrap_gettimeofday(struct timeval *tv, void *tz) {
    (void)tz;
    tv->tv_sec = 0;
    tv->tv_usec = 4242;
    return 0;
}
