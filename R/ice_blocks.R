# The storage of mp_ice (the ICE curves a result keeps; see R/result_ice.R):
# blocks of curves, their columns and rows read on demand.

# The columns of the long frame, in order.
ice_columns <- c("_vname_", "_label_", "_ids_", "_x_", "_yhat_")

# A block: the curves of variable `v` for output labels `labels`, of the
# rows `ids` (of the user's data), at grid `x` (character when the result's
# scales are mixed); `values` a G x m x outputs array or an mp_affine
# table; `suffix`: NULL, or per row a suffix of its label (the ICE-curve
# clusters of cluster_result()); `outside`: NULL, or G x m raw 0/1, the
# points outside the data's support (see ?extrapolation).
ice_block <- function(v, labels, ids, x, values, suffix = NULL, outside = NULL) {
  list(v = v, labels = labels, ids = ids, x = x, values = values, suffix = suffix, outside = outside)
}

# The blocks of an mp_ice (its `$` reads the long frame's columns).
ice_blocks <- function(x) .subset2(x, "blocks")

# The curves of a block as a G x m x outputs array.
ice_block_array <- function(b) curves_array(b$values, length(b$x), length(b$ids), length(b$labels))

# Kept curves (an array or an mp_affine table of m rows over G grid
# points, C outputs) as a G x m x C array.
curves_array <- function(values, G, m, C) {
  if (!inherits(values, "mp_affine")) return(values)
  array(affine_values(values), c(G, m, C))
}

# Rows of the long frame of a block: G * m * C, label-major, then row, then
# grid point.
ice_block_rows <- function(b) as.double(length(b$x)) * length(b$ids) * length(b$labels)

# Column `name` of a block's long frame, at its rows `r` (positions within
# the block, all when NULL), made from the compact curves.
ice_block_column <- function(b, name, r = NULL) {
  G <- length(b$x)
  m <- length(b$ids)
  C <- length(b$labels)
  if (is.null(r)) {
    switch(name,
      `_vname_` = rep(b$v, G * m * C),
      `_label_` = if (is.null(b$suffix)) rep(b$labels, each = G * m) else
        paste0(rep(b$labels, each = G * m), "_", rep(rep(b$suffix, each = G), C)),
      `_ids_` = rep(rep(b$ids, each = G), C),
      `_x_` = rep(b$x, m * C),
      `_yhat_` = if (inherits(b$values, "mp_affine")) as.vector(affine_values(b$values)) else as.vector(b$values)
    )
  } else {
    r0 <- r - 1
    g <- r0 %% G + 1
    i <- (r0 %/% G) %% m + 1
    c <- r0 %/% (G * m) + 1
    switch(name,
      `_vname_` = rep(b$v, length(r)),
      `_label_` = if (is.null(b$suffix)) b$labels[c] else paste0(b$labels[c], "_", b$suffix[i]),
      `_ids_` = b$ids[i],
      `_x_` = b$x[g],
      `_yhat_` = if (!length(r)) {
        numeric()
      } else if (inherits(b$values, "mp_affine")) {
        pos <- sort(unique(i))
        y <- affine_values(b$values, pos)
        y[cbind((match(i, pos) - 1) * G + g, c)]
      } else {
        b$values[r]
      }
    )
  }
}

# Column `name` of the long frame at its rows `rows` (all when NULL; an
# increasing or any order of positions, no NA), bound over the blocks as
# rbind() binds data frames (factor levels joined, classes kept).
ice_column <- function(x, name, rows = NULL) {
  blocks <- ice_blocks(x)
  pieces <- if (is.null(rows)) {
    lapply(blocks, ice_block_column, name = name)
  } else {
    ends <- cumsum(vapply(blocks, ice_block_rows, numeric(1)))
    k <- findInterval(rows - 1, ends) + 1L
    starts <- c(0, ends)
    # Rows of one block are read together; the pieces are put back in the
    # order asked for.
    parts <- split(seq_along(rows), k)
    lapply(names(parts), function(kk) {
      kk <- as.integer(kk)
      at <- parts[[as.character(kk)]]
      list(at = at, value = ice_block_column(blocks[[kk]], name, rows[at] - starts[kk]))
    })
  }
  if (is.null(rows)) return(bind_column(pieces, name))
  if (!length(pieces)) return(bind_column(list(ice_block_column(blocks[[1L]], name, numeric())), name))
  col <- bind_column(lapply(pieces, `[[`, "value"), name)
  at <- unlist(lapply(pieces, `[[`, "at"))
  if (is.unsorted(at)) col <- col[order(at)]
  col
}

# Vectors bound as one column of data frames bound by rbind().
bind_column <- function(pieces, name) {
  if (length(pieces) == 1L) return(pieces[[1L]])
  frames <- lapply(pieces, function(p) {
    structure(list(p), names = name, class = "data.frame", row.names = .set_row_names(length(p)))
  })
  do.call(rbind, frames)[[1L]]
}

# Number of points (rows of the long frame).
ice_size <- function(x) sum(vapply(ice_blocks(x), ice_block_rows, numeric(1)))

# The long frame of the blocks `keep` (all by default), each restricted to
# its rows whose ids are in `ids` (all when NULL).
ice_long <- function(x, keep = seq_along(ice_blocks(x)), ids = NULL) {
  blocks <- ice_blocks(x)[keep]
  if (!length(blocks)) return(NULL)
  sub <- new_mp_ice(lapply(blocks, function(b) {
    if (is.null(ids)) return(b)
    pos <- which(b$ids %in% ids)
    b$ids <- b$ids[pos]
    if (!is.null(b$suffix)) b$suffix <- b$suffix[pos]
    b$values <- if (inherits(b$values, "mp_affine")) {
      array(affine_values(b$values, pos), c(length(b$x), length(pos), length(b$labels)))
    } else {
      b$values[, pos, , drop = FALSE]
    }
    b
  }))
  long_frame(sub)
}

# The long frame (its columns `columns`, every row).
long_frame <- function(x, columns = ice_columns) {
  n <- ice_size(x)
  if (n > .Machine$integer.max) {
    cli::cli_abort(c(
      "The ICE curves have {format(n, big.mark = ',', scientific = FALSE)} points, more than a data frame can hold.",
      i = "Take a part of them first, e.g. {.code cp[cp$`_vname_` == \"x1\", ]}, or keep fewer background rows ({.arg N})."
    ), call = NULL)
  }
  cols <- lapply(stats::setNames(columns, columns), function(nm) ice_column(x, nm))
  structure(cols, class = "data.frame", row.names = .set_row_names(n))
}

# An environment in which the columns of the long frame are made when an
# expression first reads them (subset(), with()).
ice_mask <- function(x, parent) {
  env <- new.env(parent = parent)
  for (nm in ice_columns) {
    local({
      col <- nm
      delayedAssign(col, ice_column(x, col), assign.env = env)
    })
  }
  env
}

# Positions and row names of the rows `i` of the long frame (N rows), as
# `[.data.frame` selects them: list(idx (NA for rows that do not exist),
# row.names).
ice_select_rows <- function(N, i) {
  if (N <= .Machine$integer.max) {
    proxy <- structure(list(.i = seq_len(N)), class = "data.frame", row.names = .set_row_names(N))
    r <- proxy[i, , drop = FALSE]
    return(list(idx = r$.i, row.names = attr(r, "row.names")))
  }
  if (!is.numeric(i) && !is.logical(i)) {
    cli::cli_abort("Rows of more than {.val {.Machine$integer.max}} ICE points are selected by number or condition.", call = NULL)
  }
  idx <- seq_len(N)[i]
  list(idx = idx, row.names = .set_row_names(length(idx)))
}

# The columns `j` selects, as `[.data.frame` selects them.
ice_select_columns <- function(j) {
  proxy <- structure(lapply(ice_columns, function(nm) logical()), names = ice_columns,
                     class = "data.frame", row.names = integer())
  names(proxy[j])
}
