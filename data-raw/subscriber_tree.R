# Fits `subscriber_tree`, the unpruned depth-6 classification tree of the
# partial-dependence lesson, on the training rows of `subscribers`, and saves
# it to data/subscriber_tree.rda.
#
# Run from the package root, after data-raw/subscribers.R:
#   Rscript data-raw/subscriber_tree.R
#
# The growing rules are the lesson's own (a small CART, not rpart):
#
# * Features: the twelve columns of `features` below, searched in that order.
# * Impurity: Gini, 2 p (1 - p) for the share p of suspicious rows. The gain
#   of a split is the parent's impurity minus the size-weighted mean impurity
#   of the two children, computed with the same floating-point operations as
#   the lesson, because near-equal gains are decided by them.
# * Candidate thresholds are observed values, not midpoints: all distinct
#   values of the node's rows but the smallest when there are fewer than ten,
#   otherwise the nine distinct values at positions floor(i * m / 10),
#   i = 1, ..., 9 (0-based) of the m sorted distinct values.
# * A row goes left when its value is below the threshold (x < t), right
#   otherwise.
# * A split needs at least `min_leaf` = 2 rows on each side. Ties go to the
#   first best split: earliest feature, then smallest threshold.
# * A node becomes a leaf at depth 6, when it has fewer than 2 * min_leaf rows,
#   when it is pure, when no split is allowed, or when the best gain is at
#   most 1e-9.
# * The score of a node is its share of suspicious training rows; a row is
#   classified as suspicious when the score of its leaf exceeds 0.5.

load("data/subscribers.rda")

features <- c(
  "mean_consumption", "volatility", "household", "satisfaction", "period",
  "zero_readings", "per_person", "area_north", "area_south", "area_east",
  "area_west", "area_central"
)

gini <- function(positives, n) {
  p <- positives / n
  2 * p * (1 - p)
}

# Candidate thresholds of a feature within a node.
candidate_thresholds <- function(x) {
  values <- sort(unique(x))
  m <- length(values)
  if (m < 10L) values[-1L] else values[(1:9 * m) %/% 10L + 1L]
}

# Best split of the rows `x` (a data frame of the features) with labels `y`,
# or NULL when no split leaves `min_leaf` rows on both sides. For each feature
# all candidate thresholds are scored at once from cumulative label counts
# along the sorted values.
best_split <- function(x, y, features, min_leaf) {
  n <- length(y)
  total <- sum(y)
  parent <- gini(total, n)
  best <- NULL
  for (feature in features) {
    values <- x[[feature]]
    thresholds <- candidate_thresholds(values)
    if (!length(thresholds)) next
    o <- order(values)
    n_left <- findInterval(thresholds, values[o], left.open = TRUE)
    pos_left <- c(0L, cumsum(y[o]))[n_left + 1L]
    n_right <- n - n_left
    gain <- parent - (n_left * gini(pos_left, n_left) +
      n_right * gini(total - pos_left, n_right)) / n
    gain[pmin(n_left, n_right) < min_leaf] <- NA
    k <- which.max(gain)
    if (length(k) && (is.null(best) || gain[k] > best$gain)) {
      best <- list(feature = feature, threshold = thresholds[k], gain = gain[k])
    }
  }
  best
}

# Grows the tree and returns its nodes in depth-first (pre-)order, one row per
# node; `left` and `right` are row numbers of the children.
grow_tree <- function(x, y, features, max_depth, min_leaf = 2L) {
  nodes <- list()
  grow <- function(rows, depth) {
    id <- length(nodes) + 1L
    n <- length(rows)
    positives <- sum(y[rows])
    nodes[[id]] <<- data.frame(
      node = id, depth = depth, split = NA_character_, threshold = NA_real_,
      left = NA_integer_, right = NA_integer_, n = n, positives = positives,
      score = positives / n
    )
    if (depth == max_depth || n < 2L * min_leaf || positives %in% c(0L, n)) {
      return(id)
    }
    split <- best_split(x[rows, , drop = FALSE], y[rows], features, min_leaf)
    if (is.null(split) || split$gain <= 1e-9) return(id)
    goes_left <- x[[split$feature]][rows] < split$threshold
    left <- grow(rows[goes_left], depth + 1L)
    right <- grow(rows[!goes_left], depth + 1L)
    nodes[[id]][c("split", "threshold", "left", "right")] <<-
      list(split$feature, split$threshold, left, right)
    id
  }
  grow(seq_along(y), 0L)
  do.call(rbind, nodes)
}

train <- subscribers[subscribers$split == "train", ]
subscriber_tree <- structure(
  list(
    nodes = grow_tree(train[features], train$suspicious, features,
      max_depth = 6L
    ),
    features = features,
    response = "suspicious",
    max_depth = 6L,
    min_leaf = 2L
  ),
  class = "subscriber_tree"
)

save(subscriber_tree, file = "data/subscriber_tree.rda", compress = "xz")
