# Generates `subscribers`, the fictional subscriber table of the lesson on
# partial dependence and hidden interactions (seed 20260218, 1,260 rows split
# 756 / 252 / 252), value for value as the lesson's own generator produces it,
# and saves it to data/subscribers.rda.
#
# Run from the package root:  Rscript data-raw/subscribers.R
#
# Exactness. Every number must come out bit for bit as in the lesson, so the
# script reproduces the arithmetic of the original generator rather than its
# intent:
#
# * Random numbers come from a 32-bit integer hash (to seed a stream) and a
#   32-bit linear congruential generator. Unsigned 32-bit integers are held in
#   doubles, which are exact up to 2^53. A product of two such numbers can
#   reach 2^64, so it is formed from 16-bit halves (every partial product stays
#   below 2^33) and reduced modulo 2^32. bitwXor() works on signed 32-bit
#   integers and gives NA from 2^31 up, so XOR is applied to the two 16-bit
#   halves separately. Right shifts are integer divisions by powers of two.
# * Python's round(x, n) rounds the exact binary value of x to n decimals,
#   half to even, and returns the double nearest to that decimal. glibc's
#   printf("%.nf") rounds the same exact value the same way, so the digits are
#   taken from sprintf() and the integer they spell is divided by 10^n (both
#   exact, so the IEEE quotient is the nearest double). R's round() decides
#   near-ties by comparing doubles rather than exact values and is not used.
# * Python adds left to right in double precision, whereas R's sum() and
#   cumsum() accumulate in long double; running totals are therefore written
#   out with `+` (or Reduce()).

two16 <- 2^16
two32 <- 2^32

# 32-bit unsigned arithmetic on doubles ---------------------------------------

# a * b modulo 2^32. Of the four 16-bit partial products only three matter
# (the high x high one is a multiple of 2^32) and none exceeds 2^33.
u32_mul <- function(a, b) {
  a_hi <- a %/% two16
  a_lo <- a %% two16
  b_hi <- b %/% two16
  b_lo <- b %% two16
  cross <- (a_hi * b_lo + a_lo * b_hi) %% two16
  (cross * two16 + a_lo * b_lo) %% two32
}

# Bitwise XOR, one 16-bit half at a time so that bitwXor() only ever sees
# values it can represent.
u32_xor <- function(a, b) {
  hi <- bitwXor(as.integer(a %/% two16), as.integer(b %/% two16))
  lo <- bitwXor(as.integer(a %% two16), as.integer(b %% two16))
  hi * two16 + lo
}

u32_shift_right <- function(a, bits) a %/% 2^bits

# The generator --------------------------------------------------------------

# Initial state of the stream with seed `t`: a murmur3-style finaliser.
stream_state <- function(t) {
  x <- u32_mul(u32_xor(t, u32_shift_right(t, 16)), 2246822507)
  x <- u32_mul(u32_xor(x, u32_shift_right(x, 13)), 3266489909)
  u32_xor(x, u32_shift_right(x, 16))
}

# The first `n` draws of the stream of each seed, one row per seed (the
# streams are independent, so they are advanced together). Each draw is the
# new state of state <- (1664525 * state + 1013904223) mod 2^32 divided by
# 2^32, a multiple of 2^-32 in [0, 1).
stream_draws <- function(seeds, n) {
  state <- stream_state(seeds)
  draws <- matrix(0, nrow = length(seeds), ncol = n)
  for (k in seq_len(n)) {
    state <- (u32_mul(state, 1664525) + 1013904223) %% two32
    draws[, k] <- state / two32
  }
  draws
}

# The category (1-based) a uniform draw falls into: the first one whose
# running total of weights exceeds the draw, or the last one if none does.
# The running totals are double-precision sums taken left to right.
pick <- function(u, weights) {
  edges <- Reduce(`+`, weights, accumulate = TRUE)
  pmin(findInterval(u, edges), length(weights) - 1L) + 1L
}

# Python's round(x, digits) for digits >= 0 (see the header).
round_half_even <- function(x, digits) {
  spelled <- sub(".", "", sprintf("%.*f", as.integer(digits), x), fixed = TRUE)
  as.numeric(spelled) / 10^digits
}

# The table ------------------------------------------------------------------

seed <- 20260218
n_raw <- 1400

# Regions: share of subscribers, typical consumption, shift of the latent
# suspicion score.
regions <- data.frame(
  name = c("north", "south", "east", "west", "central"),
  share = c(0.28, 0.22, 0.18, 0.14, 0.18),
  level = c(21, 17, 26, 14, 23),
  shift = c(0, -0.10, 0.30, -0.05, 0.05)
)

# 1. Subscribers: four draws each from the stream seed + i, i = 0, ..., 1399;
#    the fourth leaves out 4.6% of them.
u <- stream_draws(seed + seq_len(n_raw) - 1, 4)
people <- data.frame(
  id = 10000 + seq_len(n_raw),
  region = pick(u[, 1], regions$share),
  household = pick(u[, 2], c(0.06, 0.24, 0.30, 0.24, 0.11, 0.05)),
  satisfaction = pick(u[, 3], c(0.08, 0.14, 0.27, 0.34, 0.17))
)
people <- people[u[, 4] >= 0.046, ]

# 2. Meter readings, from the stream seed + 7000 + id: one draw for the number
#    of readings (0 to 3); then, per reading, one draw that makes it zero
#    with probability 0.038, three more for its value unless it is zero (the
#    regional level times exp(noise), 5% lower for each later reading), and
#    one draw that is thrown away: at most 1 + 3 * 5 draws in all. The
#    streams are consumed at different speeds, so `next_draw` holds the
#    column of each stream's next draw.
u <- stream_draws(seed + 7000 + people$id, 16)
n_readings <- pick(u[, 1], c(0.05, 0.12, 0.21, 0.62)) - 1L
readings <- matrix(NA_real_, nrow = nrow(people), ncol = 3)
next_draw <- rep(2L, nrow(people))
for (n in 0:2) {
  rows <- which(n_readings > n)
  at <- next_draw[rows]
  is_zero <- u[cbind(rows, at)] < 0.038
  noise <- u[cbind(rows, at + 1L)] + u[cbind(rows, at + 2L)] +
    u[cbind(rows, at + 3L)] - 1.5
  level <- regions$level[people$region[rows]]
  value <- floor(level * exp(noise * 0.62) * (1 - n * 0.05) * 100 + 0.5) / 100
  readings[rows, n + 1L] <- ifelse(is_zero, 0, value)
  next_draw[rows] <- at + ifelse(is_zero, 2L, 5L)
}

# Subscribers without any reading do not enter the table.
keep <- n_readings > 0
people <- people[keep, ]
readings <- readings[keep, , drop = FALSE]
n_readings <- n_readings[keep]

filled <- ifelse(is.na(readings), 0, readings)   # x + 0 is exact
mean_reading <- (filled[, 1] + filled[, 2] + filled[, 3]) / n_readings
lowest <- pmin(readings[, 1], readings[, 2], readings[, 3], na.rm = TRUE)
highest <- pmax(readings[, 1], readings[, 2], readings[, 3], na.rm = TRUE)
spread <- highest - lowest

# 3. The label: a latent score from the unrounded mean and spread, the
#    household, satisfaction, region, a drift along the id and noise from
#    three draws of the stream seed + 51000 + id; suspicious above 1.35.
u <- stream_draws(seed + 51000 + people$id, 3)
score <- 0.052 * (mean_reading - 20) + 0.85 * (lowest == 0) + 0.026 * spread +
  0.24 * (people$household >= 5) - 0.20 * (people$satisfaction >= 4) +
  regions$shift[people$region] + 0.9 * (people$id - 10001) / 1399 +
  (u[, 1] + u[, 2] + u[, 3] - 1.5) * 1.30

subscribers <- data.frame(
  household = people$household,
  satisfaction = people$satisfaction,
  period = n_readings,
  mean_consumption = round_half_even(mean_reading, 2),
  volatility = round_half_even(spread, 2),
  zero_readings = as.integer(lowest == 0),
  suspicious = as.integer(score > 1.35),
  region_name = factor(regions$name[people$region], levels = regions$name)
)
subscribers$per_person <- round_half_even(
  subscribers$mean_consumption / subscribers$household, 3
)
for (r in regions$name) {
  subscribers[[paste0("area_", r)]] <- as.integer(subscribers$region_name == r)
}

# 4. Split: a Fisher-Yates shuffle driven by the stream seed + 90000 (the
#    k-th draw u swaps position i = n - k + 1 with position floor(u * i) + 1),
#    then the first 756 rows train, the next 252 validate, the rest test.
shuffle_order <- function(n, seed) {
  u <- stream_draws(seed, n - 1L)
  perm <- seq_len(n)
  for (k in seq_len(n - 1L)) {
    i <- n - k + 1L
    j <- floor(u[k] * i) + 1L
    perm[c(i, j)] <- perm[c(j, i)]
  }
  perm
}

stopifnot(nrow(subscribers) == 1260L)
subscribers <- subscribers[shuffle_order(nrow(subscribers), seed + 90000), ]
rownames(subscribers) <- NULL
split_sizes <- c(train = 756L, validation = 252L, test = 252L)
subscribers$split <- factor(
  rep(names(split_sizes), split_sizes),
  levels = names(split_sizes)
)

dir.create("data", showWarnings = FALSE)
save(subscribers, file = "data/subscribers.rda", compress = "xz")
