# Recomputes every number the partial-dependence lesson prints from
# data/subscribers.rda and data/subscriber_tree.rda, shows it next to the
# lesson's printed value, and stops if any differs at the printed precision.
#
# Run from the package root, after the two other data-raw scripts:
#   Rscript data-raw/subscribers-check.R
#
# The definitions the lesson uses, and this script follows:
# * Baseline: share of test rows that are not suspicious (majority class).
# * Accuracy: share of test rows with (score > 0.5) == suspicious.
# * Grid of a column: its m sorted distinct values in the TRAINING rows,
#   k = min(5, m) of them, at 0-based positions floor(i * (m - 1) / (k - 1)),
#   i = 0, ..., k - 1.
# * Partial dependence at a grid value: the mean score over the TEST rows (or
#   over the test rows of a subgroup) with the column set to that value and
#   per_person recomputed from mean_consumption and household.
# * Slope: partial dependence at the last grid point minus at the first.
# * Flat: |slope| < 0.05 over all test rows.
# * Subgroups (13, of the test rows): the five regions; tariff tiers by
#   mean_consumption (<= 10, <= 25, above); household 1-2, 3-4, 5+; readings
#   few (period <= 2) and all. Those with fewer than 25 test rows are not read.
# * Opposite slopes: a flat column with a subgroup slope above 0.02 and one
#   below -0.02; its gap is the highest minus the lowest subgroup slope.

load("data/subscribers.rda")
load("data/subscriber_tree.rda")
source("inst/examples/subscriber.R")   # the methods and subscriber_features()

# What the lesson prints -----------------------------------------------------

lesson <- list(
  sizes = c(train = "756", validation = "252", test = "252", subgroups = "13",
            below_threshold = "tariff 10"),
  baseline = "0.7579",
  accuracy = "0.7897",
  profiles = list(
    mean_consumption = c("0:0.0848", "15.23:0.1380", "19.51:0.2234",
                         "23.81:0.2250", "42.9:0.3838"),
    volatility = c("0:0.1374", "5.52:0.1374", "9.89:0.1945", "15.64:0.3158",
                   "40.57:0.7731"),
    household = c("1:0.2546", "2:0.2510", "3:0.2274", "4:0.2165", "6:0.2477"),
    satisfaction = c("1:0.2926", "2:0.2588", "3:0.2315", "4:0.2354",
                     "5:0.2460"),
    period = c("1:0.2491", "2:0.2491", "3:0.2491")
  ),
  slopes = c(mean_consumption = "+0.2990", volatility = "+0.6357",
             household = "-0.0069", satisfaction = "-0.0466",
             period = "+0.0000"),
  flat = "household, satisfaction, period",
  # Subgroup slopes of the flat columns: household, satisfaction, period.
  subgroup_slopes = rbind(
    "whole"           = c("-0.0069", "-0.0466", "+0.0000"),
    "region north"    = c("+0.0916", "-0.1146", "+0.0000"),
    "region south"    = c("-0.0477", "-0.0108", "+0.0000"),
    "region east"     = c("-0.1891", "+0.0278", "+0.0000"),
    "region west"     = c("-0.0442", "-0.0313", "+0.0000"),
    "region central"  = c("+0.0522", "-0.0573", "+0.0000"),
    "tariff 25"       = c("-0.0264", "-0.0143", "+0.0000"),
    "tariff 40"       = c("+0.1301", "-0.1911", "+0.0000"),
    "household 1-2"   = c("-0.0354", "-0.0665", "+0.0000"),
    "household 3-4"   = c("+0.0049", "-0.0533", "+0.0000"),
    "household 5+"    = c("+0.0040", "+0.0205", "+0.0000"),
    "readings few"    = c("+0.0155", "-0.0359", "+0.0000"),
    "readings all"    = c("-0.0183", "-0.0520", "+0.0000")
  ),
  read = "12/13",
  opposite = "2",
  extremes = rbind(
    household = c("tariff 40", "+0.1301", "region east", "-0.1891", "0.3192"),
    satisfaction = c("region east", "+0.0278", "tariff 40", "-0.1911", "0.2189")
  )
)

# The same numbers from the R objects ----------------------------------------

results <- list()
compare <- function(quantity, lesson_value, r_value) {
  results[[length(results) + 1L]] <<- data.frame(
    quantity = quantity, lesson = lesson_value, r = r_value
  )
}
f4 <- function(x) sprintf("%.4f", x)
signed4 <- function(x) sprintf("%+.4f", x)

train <- subscribers[subscribers$split == "train", ]
test <- subscribers[subscribers$split == "test", ]

lesson_grid <- function(x, points = 5L) {
  values <- sort(unique(x))
  m <- length(values)
  k <- min(points, m)
  values[((seq_len(k) - 1L) * (m - 1L)) %/% max(k - 1L, 1L) + 1L]
}

score <- function(data) predict(subscriber_tree, subscriber_features(data))

partial_dependence <- function(rows, column, grid) {
  vapply(grid, function(value) {
    rows[[column]] <- value
    mean(score(rows))
  }, numeric(1))
}

# Subgroups of the test rows, in the lesson's order.
tariff <- cut(test$mean_consumption, c(-Inf, 10, 25, Inf),
              labels = c("tariff 10", "tariff 25", "tariff 40"))
household_group <- cut(
  test$household, c(-Inf, 2, 4, Inf),
  labels = c("household 1-2", "household 3-4", "household 5+")
)
readings <- factor(ifelse(test$period <= 2, "readings few", "readings all"),
                   levels = c("readings few", "readings all"))
groupings <- list(
  region = factor(paste("region", test$region_name),
                  levels = paste("region", levels(test$region_name))),
  tariff = tariff, household = household_group, readings = readings
)
subgroups <- list()   # one logical vector over the test rows per subgroup
for (g in groupings) {
  for (level in levels(g)) subgroups[[level]] <- g == level
}
sizes <- vapply(subgroups, sum, integer(1))

compare(paste("rows", names(lesson$sizes)[1:3]), lesson$sizes[1:3],
        as.character(as.vector(table(subscribers$split))))
compare("number of subgroups", lesson$sizes[["subgroups"]],
        as.character(length(subgroups)))
compare("subgroups below 25 test rows", lesson$sizes[["below_threshold"]],
        paste(names(sizes)[sizes < 25], collapse = ", "))

compare("baseline (test)", lesson$baseline, f4(mean(test$suspicious == 0)))
compare("tree accuracy (test)", lesson$accuracy,
        f4(mean((score(test) > 0.5) == test$suspicious)))

columns <- names(lesson$profiles)
grids <- lapply(setNames(columns, columns), function(a) lesson_grid(train[[a]]))
slope <- numeric(0)
for (a in columns) {
  pd <- partial_dependence(test, a, grids[[a]])
  slope[[a]] <- pd[length(pd)] - pd[1L]
  compare(paste("grid:PD", a, seq_along(pd)), lesson$profiles[[a]],
          sprintf("%g:%.4f", grids[[a]], pd))
  compare(paste("slope", a), lesson$slopes[[a]], signed4(slope[[a]]))
}
flat <- names(slope)[abs(slope) < 0.05]
compare("flat columns", lesson$flat, paste(flat, collapse = ", "))

read <- names(sizes)[sizes >= 25]
group_slopes <- sapply(flat, function(a) vapply(read, function(g) {
  pd <- partial_dependence(test[subgroups[[g]], ], a, grids[[a]])
  pd[length(pd)] - pd[1L]
}, numeric(1)))
all_slopes <- rbind(whole = slope[flat], group_slopes)
compare(
  paste("slope", rep(rownames(all_slopes), ncol(all_slopes)),
        rep(colnames(all_slopes), each = nrow(all_slopes))),
  as.vector(lesson$subgroup_slopes[rownames(all_slopes), ]),
  signed4(as.vector(all_slopes))
)
compare("subgroups read", lesson$read,
        paste0(length(read), "/", length(subgroups)))

opposite <- flat[apply(group_slopes, 2, function(s) {
  max(s) > 0.02 && min(s) < -0.02
})]
compare("flat columns sloped in opposite directions", lesson$opposite,
        as.character(length(opposite)))
for (a in opposite) {
  s <- group_slopes[, a]
  hi <- which.max(s)
  lo <- which.min(s)
  compare(
    paste(a, c("highest", "highest slope", "lowest", "lowest slope", "gap")),
    lesson$extremes[a, ],
    c(names(s)[hi], signed4(s[hi]), names(s)[lo], signed4(s[lo]),
      f4(s[hi] - s[lo]))
  )
}

# Report ---------------------------------------------------------------------

results <- do.call(rbind, results)
results$same <- ifelse(results$lesson == results$r, "ok", "DIFFERENT")
cat(sprintf("%-44s %-32s %-32s %s",
            c("quantity", results$quantity), c("lesson", results$lesson),
            c("R", results$r), c("", results$same)),
    sep = "\n")
if (any(results$same != "ok")) {
  stop(sum(results$same != "ok"), " of ", nrow(results),
       " numbers differ from the lesson", call. = FALSE)
}
cat("\nAll", nrow(results), "numbers agree with the lesson.\n")
