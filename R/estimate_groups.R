# Subgroups of the background rows: the parts that profiles are computed
# within (model_profile(groups = ), hidden_interactions()).

# The subgroup of each value: a factor. A numeric g is cut at its type-7
# quantiles, with case weights w (NULL for none) those of the values
# repeated w times.
group_factor <- function(g, bins, w = NULL) {
  if (is.numeric(g) && length(unique(g[!is.na(g)])) > bins) {
    ok <- !is.na(g)
    br <- unique(grid_quantiles(as.double(g[ok]), if (!is.null(w)) w[ok],
                                seq(0, 1, length.out = bins + 1L), 7L))
    return(cut(g, br, include.lowest = TRUE, dig.lab = 4))
  }
  if (is.factor(g)) droplevels(g) else factor(g)
}

# All background rows as one part.
whole_part <- function(setup) list(list(level = NA_character_, rows = seq_len(setup$n)))

# The parts of the background rows by the values of `values` (one per row of
# the data; the grouping named `title`): list(parts, info). Rows with a
# missing value are left out with a warning, subgroups smaller than
# min_size with a message (of class modelprofiles_small_groups).
group_parts <- function(setup, values, bins, min_size, title) {
  call <- setup$error_call
  g <- group_factor(values[setup$rows], bins, if (setup$weighted) setup$case_weights)
  if (anyNA(g)) {
    mp_warn("{sum(is.na(g))} background row{?s} with a missing {.field {title}} {cli::qty(sum(is.na(g)))}{?is/are} left out of the subgroups.", call = call)
  }
  sizes <- table(g)
  small <- names(sizes)[sizes < min_size]
  if (length(small)) {
    cli::cli_inform(c(
      "{cli::qty(length(small))}Subgroup{?s} of {.field {title}} with fewer than {min_size} background rows left out: {paste0(small, ' (', sizes[small], ' rows)')}.",
      i = "Lower {.arg min_group_size} or {.arg group_bins}, or raise {.arg N}, to keep them."
    ), class = "modelprofiles_small_groups")
  }
  keep <- setdiff(names(sizes), small)
  if (!length(keep)) {
    cli::cli_abort("No subgroup of {.field {title}} has {min_size} or more background rows.", call = call)
  }
  parts <- lapply(keep, function(lev) list(level = lev, rows = which(!is.na(g) & g == lev)))
  info <- list(column = title, levels = keep, sizes = as.vector(sizes[keep]),
               left_out = small, left_out_sizes = as.vector(sizes[small]))
  list(parts = parts, info = info)
}

# Groupings as a named list of vectors (hidden_interactions()): column
# names of data, a named list (or data frame) of vectors, or one vector with
# a value per row of data (titled `title`, the user's expression), which is
# not read as column names.
resolve_groupings <- function(groups, data, call, title = "group") {
  if (is.atomic(groups) && !is.null(groups) && length(groups) == nrow(data) && nrow(data) > 1L &&
      !(is.character(groups) && all(groups %in% names(data)))) {
    return(stats::setNames(list(groups), title))
  }
  if (is.character(groups)) {
    unknown <- setdiff(groups, names(data))
    if (length(unknown) && anyDuplicated(groups)) {
      # Repeated values: group values of the wrong length, not column names.
      cli::cli_abort(c(
        "{.arg groups} must be column names, or a vector with one value per row of {.arg data} ({nrow(data)}).",
        x = "It has {length(groups)} value{?s}, with repeats; {.val {unknown}} {?is not a column/are not columns}."
      ), call = call)
    }
    if (length(unknown)) {
      cli::cli_abort(c("{.arg groups} names column{?s} not in the data: {.val {unknown}}.",
                       column_hint(unknown, names(data))), call = call)
    }
    return(stats::setNames(lapply(groups, function(g) data[[g]]), groups))
  }
  if (is.data.frame(groups)) groups <- as.list(groups)
  if (!is.list(groups) || is.null(names(groups)) || any(!nzchar(names(groups))) ||
      any(lengths(groups) != nrow(data))) {
    cli::cli_abort(
      "{.arg groups} must be column names, a vector with one value per row of {.arg data} ({nrow(data)}), or a named list of such vectors.",
      call = call
    )
  }
  groups
}

# `groups` of model_profile(): a column name, or a vector with one value per
# row of data (titled group_title): list(values, title), or NULL.
resolve_group_values <- function(groups, data, group_title, call) {
  if (is.null(groups)) return(NULL)
  if (is.character(groups) && length(groups) == 1L && groups %in% names(data)) {
    return(list(values = data[[groups]], title = groups, column = groups))
  }
  if (is.atomic(groups) && length(groups) == nrow(data) && nrow(data) > 1L) {
    return(list(values = groups, title = group_title %||% "group", column = NULL))
  }
  if (is.character(groups) && length(groups) == 1L) {
    cli::cli_abort(c("{.arg groups} names no column of {.arg data}: {.val {groups}}.",
                     column_hint(groups, names(data)) %||% c(i = "The data has {.val {names(data)}}.")), call = call)
  }
  cli::cli_abort(c(
    "{.arg groups} must be the name of a column of {.arg data}, or a vector with one value per row of {.arg data}.",
    i = "{.arg data} has {nrow(data)} rows."
  ), call = call)
}
