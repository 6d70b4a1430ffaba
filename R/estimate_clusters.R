# Clusters of ICE curves: what a partial-dependence average can hide.

# Group the background rows by their ICE curves (all profiled variables and
# classes together) and replace the profiles of `res` (an ungrouped PD
# mp_profile) by the mean curve of each cluster, as DALEX::model_profile(k
# = ) does (ingredients::cluster_profiles() with center = TRUE): Ward's
# hierarchical clustering (hclust, "ward.D2") of the root-mean-square
# distances between the rows' curves, each centred on its mean when
# `center`, cut into k clusters. `raw`: the estimates of res's variables
# (run_profiles()), whose ICE arrays are clustered.
cluster_result <- function(res, raw, k, center, call) {
  if (any(vapply(res$variables, function(v) is.null(raw[[v]]$ice), logical(1)))) {
    cli::cli_abort(c(
      "Clustering needs the ICE curves, and they do not fit in {.arg memory_budget}.",
      i = "Raise {.arg memory_budget} or lower {.arg N}."
    ), call = call)
  }
  n <- length(res$rows)
  if (k >= n) {
    cli::cli_abort("{.arg k} ({k}) must be smaller than the number of background rows ({n}).", call = call)
  }
  # One block of curves per variable and output: a G x n matrix each.
  blocks <- unlist(lapply(res$variables, function(v) {
    ice <- curves_array(raw[[v]]$ice, length(raw[[v]]$x), n, length(res$labels))
    lapply(seq_along(res$labels), function(c) {
      list(v = v, c = c, curves = matrix(ice[, , c], ncol = n))
    })
  }), recursive = FALSE)
  M <- do.call(rbind, lapply(blocks, `[[`, "curves")) # all grid points x rows
  if (center) M <- sweep(M, 2L, colMeans(M))
  d <- stats::dist(t(M)) / sqrt(nrow(M))
  cluster <- stats::cutree(ward_tree(d, res$weights), k = k)
  w <- res$weights %||% rep(1, n)
  cl_label <- function(label, c) paste0(label, "_", c)
  agr <- bind_rows(lapply(seq_len(k), function(c) {
    in_c <- cluster == c
    bind_rows(lapply(blocks, function(b) {
      x <- res$agr_profiles$`_x_`[res$agr_profiles$`_vname_` == b$v][seq_len(nrow(b$curves))]
      data.frame(
        `_vname_` = b$v, `_label_` = cl_label(res$labels[b$c], c), `_x_` = x,
        `_yhat_` = as.vector(b$curves[, in_c, drop = FALSE] %*% w[in_c]) / sum(w[in_c]),
        `_ids_` = 0L,
        `_support_` = grid_support(res$observed[[b$v]][in_c], res$grids[[b$v]],
                                   if (!is.null(res$weights)) w[in_c]),
        `_cluster_` = c,
        check.names = FALSE, stringsAsFactors = FALSE
      )
    }))
  }))
  res$cp_profiles <- new_mp_ice(lapply(ice_blocks(ice_of(res)), function(b) {
    b$suffix <- cluster[match(b$ids, res$rows)]
    b
  }), ice_observed(res), res$rows, res$grids)
  res$agr_profiles <- agr
  parts <- res$label_parts
  res$label_parts <- bind_rows(lapply(seq_len(k), function(c) {
    data.frame(label = cl_label(parts$label, c), group = as.character(c), class = parts$class,
               stringsAsFactors = FALSE)
  }))
  res$labels <- res$label_parts$label
  res$clusters <- data.frame(row = res$rows, cluster = cluster)
  res$groups <- list(column = "ICE-curve cluster", levels = as.character(seq_len(k)),
                     sizes = tabulate(cluster, k), left_out = character())
  new_mp_profile(res)
}

# Ward's hierarchical clustering (ward.D2) of the rows at distances d, with
# case weights w (NULL for none): a row of weight w is a cluster of w
# identical rows, whose Ward distance to another row is
# sqrt(2 w_a w_b / (w_a + w_b)) times the distance between the two
# (hclust() then carries the sizes through its updates, `members`), so that
# integer weights give the tree of the repeated rows above the merges of
# identical rows at height 0, and the same clusters.
ward_tree <- function(d, w = NULL) {
  if (is.null(w) || all(w == 1)) return(stats::hclust(d, method = "ward.D2"))
  n <- length(w)
  # The pairs (i, j), i > j, in the order of a dist object.
  j <- rep.int(seq_len(n - 1L), (n - 1L):1)
  i <- sequence((n - 1L):1) + j
  d[] <- sqrt(2 * w[i] * w[j] / (w[i] + w[j])) * d
  stats::hclust(d, method = "ward.D2", members = w)
}
