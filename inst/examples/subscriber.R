# Helpers of the worked example on the fictional subscriber table (the
# package's datasets `subscribers` and `subscriber_tree`; the vignette
# "What the average hides"). They serve that example only, so they are not
# part of the package's namespace; source this file to have them:
#
#   source(system.file("examples", "subscriber.R", package = "modelprofiles"))
#
# It defines, in the environment it is sourced into,
#   subscriber_features(data)      recompute the derived column per_person
#   predict.subscriber_tree()      the tree's scores (a predict() method)
#   print.subscriber_tree()        the tree's size and top levels
# and registers the two methods, so that predict(subscriber_tree, data) and
# printing the tree work wherever they are called from.

# Recompute the per-person consumption of subscriber rows.
#
# `per_person` in `subscribers` is derived from two other columns:
# `mean_consumption / household`, rounded to three decimals. A profile that
# sets `mean_consumption` or `household` to a grid value must move
# `per_person` with it, or the model is asked about rows whose columns
# contradict each other: call subscriber_features() inside the predict
# function, e.g.
#   function(m, d) predict(m, subscriber_features(d))
#
# The rounding is that of the lesson the data come from (Python's round()):
# the exact binary value of the quotient is rounded to the nearest multiple
# of 0.001, half to even. It differs from base::round() for quotients close
# to a half, e.g. 23.43 / 4 (stored as 5.857499...) gives 5.857, where
# round(23.43 / 4, 3) gives 5.858; in `subscribers` this concerns 25 rows.
# A household size below 1 counts as 1. Returns `data` with the column
# `per_person` recomputed (added if absent).
subscriber_features <- function(data) {
  needed <- c("mean_consumption", "household")
  absent <- setdiff(needed, names(data))
  if (length(absent)) {
    cli::cli_abort("{.arg data} has no column{?s} {.field {absent}}.")
  }
  ratio <- data$mean_consumption / pmax(1, data$household)
  # sprintf() rounds the exact binary value half to even (C's printf); the
  # digits it spells, divided by 1000, give the nearest double to the result.
  thousandths <- as.numeric(sub(".", "", sprintf("%.3f", ratio), fixed = TRUE))
  data$per_person <- thousandths / 1000
  data
}

# Predict with the subscriber tree: sends each row of `newdata` (a data
# frame or matrix with the columns the tree splits on) down the tree and
# returns the score of the leaf it reaches, the share of suspicious training
# rows in that leaf; NA for a row that meets a missing value on its way
# down. All rows move one level at a time, so the work is a few vectorised
# comparisons per level. The tree splits on `per_person`: when
# `mean_consumption` or `household` are changed, recompute it with
# subscriber_features() first.
predict.subscriber_tree <- function(object, newdata, ...) {
  if (!is.data.frame(newdata)) newdata <- as.data.frame(newdata)
  nodes <- object$nodes
  used <- unique(nodes$split[!is.na(nodes$split)])
  absent <- setdiff(used, names(newdata))
  if (length(absent)) {
    cli::cli_abort("{.arg newdata} has no column{?s} {.field {absent}}.")
  }
  at <- rep(1L, nrow(newdata))               # each row's current node
  repeat {
    inner <- which(!is.na(nodes$split[at]))  # rows not yet at a leaf
    if (!length(inner)) break
    node <- at[inner]
    column <- nodes$split[node]
    goes_left <- logical(length(inner))
    for (name in unique(column)) {
      k <- column == name
      goes_left[k] <- newdata[[name]][inner[k]] < nodes$threshold[node[k]]
    }
    # A missing value makes goes_left NA, and so the node NA: the row stops
    # there and scores NA.
    at[inner] <- ifelse(goes_left, nodes$left[node], nodes$right[node])
  }
  nodes$score[at]
}

# Print the subscriber tree: its size and its levels down to `depth` (the
# root is level 0; Inf shows the whole tree) as indented rules, one line per
# node: the condition that leads to the node, the number of training rows
# that reach it and their share of suspicious rows; `*` marks a leaf.
# Returns `x`, invisibly.
print.subscriber_tree <- function(x, depth = 2, ...) {
  nodes <- x$nodes
  leaf <- is.na(nodes$split)
  cli::cat_line(
    "<subscriber_tree> classification tree for `", x$response, "`: ",
    nrow(nodes), " nodes, ", sum(leaf), " leaves, depth ", max(nodes$depth)
  )
  cli::cat_line(strwrap(
    paste0(
      "grown on ", nodes$n[1L], " rows; splits on ",
      paste(unique(nodes$split[!leaf]), collapse = ", ")
    ),
    indent = 2, exdent = 4
  ))
  # The condition that leads to each node, from its parent's split.
  condition <- rep("root", nrow(nodes))
  for (side in c("left", "right")) {
    parent <- which(!leaf)
    child <- nodes[[side]][parent]
    condition[child] <- paste(
      nodes$split[parent], if (side == "left") "<" else ">=",
      as.character(nodes$threshold[parent])
    )
  }
  shown <- nodes$depth <= depth
  cli::cat_line(
    strrep("  ", nodes$depth[shown] + 1L), condition[shown],
    "  n = ", nodes$n[shown],
    ", score = ", formatC(nodes$score[shown], digits = 4, format = "f"),
    ifelse(leaf[shown], " *", "")
  )
  if (any(!shown)) {
    cli::cat_line(
      "  ... ", sum(!shown), " deeper nodes; print(x, depth = Inf) shows them"
    )
  }
  invisible(x)
}

registerS3method("predict", "subscriber_tree", predict.subscriber_tree)
registerS3method("print", "subscriber_tree", print.subscriber_tree)
