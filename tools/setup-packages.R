# Install the R packages that tools/setup.sh cannot take from Debian, from
# the repositories R is configured with.
#   Rscript tools/setup-packages.R run|check|bench           decide and install
#   Rscript tools/setup-packages.R run|check|bench --verify  load them all
#
# It decides from the libraries on disk, never from a loaded namespace: no
# requireNamespace() or packageVersion() here (a namespace loaded before its
# upgrade would keep answering with the old version). What is needed is read
# from DESCRIPTION (Imports, LinkingTo, Suggests, with their version bounds);
# every bound of every package to be installed is followed, so an old
# dependency that a new package needs (future for future.callr, checkmate for
# mlr3) is upgraded with it. One install.packages() call builds the packages
# two at a time (Ncpus = 2) in dependency order; xgboost, whose current
# release needs R >= 4.3, comes from the archive in a second process at the
# same time. setup.sh then runs this script with --verify in a new process,
# which loads every needed package and checks the loaded versions.
args <- commandArgs(trailingOnly = TRUE)
what <- if (length(args)) args[[1L]] else "check"
t_start <- Sys.time()
stamp <- function(...) {
  cat(sprintf("[setup %6.1f s] ", as.numeric(difftime(Sys.time(), t_start, units = "secs"))),
      ..., "\n", sep = "")
}

repos <- getOption("repos")
if (is.null(repos) || !nzchar(repos[[1L]]) || identical(unname(repos[[1L]]), "@CRAN@")) {
  stop("R has no package repository configured: set options(repos = ...) in Rprofile.site")
}
Sys.setenv(MAKEFLAGS = "-j2")
lib <- .libPaths()[[1L]]

# Requirements "name (op version)" of a DESCRIPTION-style field, as a data
# frame (name, op, version; op and version NA when unbounded).
parse_requirements <- function(field) {
  field <- field[!is.na(field)]
  if (!length(field)) return(data.frame(name = character(), op = character(), version = character()))
  parts <- trimws(unlist(strsplit(gsub("\\s+", " ", paste(field, collapse = ",")), ",")))
  parts <- parts[nzchar(parts)]
  m <- regmatches(parts, regexec("^([A-Za-z0-9.]+)\\s*(\\(\\s*([<>=]+)\\s*([^)]+?)\\s*\\))?$", parts))
  data.frame(
    name = vapply(m, `[`, "", 2L),
    op = vapply(m, function(x) if (nzchar(x[4L])) x[4L] else NA_character_, ""),
    version = vapply(m, function(x) if (nzchar(x[5L])) x[5L] else NA_character_, ""),
    stringsAsFactors = FALSE
  )
}

# The version on disk of each package, the first in .libPaths() (the one a
# new process loads): read from DESCRIPTION files, nothing loaded.
on_disk <- function() {
  ip <- utils::installed.packages(lib.loc = .libPaths(), noCache = TRUE, fields = character())
  ip <- ip[!duplicated(ip[, "Package"]), , drop = FALSE]
  stats::setNames(ip[, "Version"], ip[, "Package"])
}
meets <- function(have, op, version) {
  if (is.na(have)) return(FALSE)
  if (is.na(op)) return(TRUE)
  do.call(op, list(package_version(have), package_version(version)))
}

desc <- read.dcf("DESCRIPTION")
fields <- c("Depends", "Imports", "LinkingTo", if (what %in% c("check", "bench")) "Suggests")
need <- parse_requirements(desc[1L, intersect(fields, colnames(desc))])
need <- need[need$name != "R", ]
if (what %in% c("check", "bench")) {
  # Bounds the packages need but do not declare: mlr3measures calls
  # checkmate::assert_permutation() (checkmate 2.3.0) with a bare
  # "checkmate" in its Imports, and Debian 12 builds checkmate 2.1.
  need <- rbind(need, parse_requirements("checkmate (>= 2.3.0)"))
}
if (what == "run") {
  # The quick start's model and data.
  need <- rbind(need, parse_requirements("ranger, MASS"))
}
if (what == "bench") {
  # The peers of inst/bench/ (ALEPlot is archived: its last release, 1.1).
  need <- rbind(need, parse_requirements("effectplots, callr, ALEPlot"))
}
# Suggested packages whose failure to install only skips their tests.
optional <- c("future.mirai", "mirai", "nanonext")
# Packages that come from an archive on this R (their current release needs a
# newer R): name -> path in the repository.
archived <- c(
  xgboost = if (getRversion() < "4.3.0") "src/contrib/Archive/xgboost/xgboost_1.7.8.1.tar.gz",
  ALEPlot = "src/contrib/Archive/ALEPlot/ALEPlot_1.1.tar.gz"
)

verify <- "--verify" %in% args
if (!verify) {
  db <- utils::available.packages()
  base <- rownames(utils::installed.packages(priority = "base", noCache = TRUE))
  have <- on_disk()
  # Follow every bound of the packages to install, from `queue`, adding to
  # `chosen` (list of todo, from_archive); returns it with what is unmet.
  resolve <- function(queue, chosen) {
    todo <- chosen$todo
    from_archive <- chosen$from_archive
    unmet <- character()
    while (nrow(queue)) {
      r <- queue[1L, ]
      queue <- queue[-1L, ]
      if (r$name %in% c("R", base)) next
      if (r$name %in% c(todo, from_archive)) {
        # Already chosen: the chosen version must meet this bound too.
        if (r$name %in% todo && !meets(db[r$name, "Version"], r$op, r$version)) {
          unmet <- c(unmet, sprintf("%s (%s %s): the repository has %s", r$name, r$op, r$version, db[r$name, "Version"]))
        }
        next
      }
      if (meets(have[r$name], r$op, r$version)) next
      if (r$name %in% rownames(db) && meets(db[r$name, "Version"], r$op, r$version)) {
        todo <- c(todo, r$name)
        queue <- rbind(queue, parse_requirements(db[r$name, c("Depends", "Imports", "LinkingTo")]))
      } else if (!is.na(archived[r$name])) {
        from_archive <- c(from_archive, r$name)
      } else {
        unmet <- c(unmet, sprintf("%s%s: %s", r$name,
                                  if (is.na(r$op)) "" else sprintf(" (%s %s)", r$op, r$version),
                                  if (r$name %in% rownames(db)) paste("the repository has", db[r$name, "Version"])
                                  else "not in the repository for this R"))
      }
    }
    list(todo = todo, from_archive = from_archive, unmet = unique(unmet))
  }
  chosen <- resolve(need[!need$name %in% optional, ], list(todo = character(), from_archive = character()))
  if (length(chosen$unmet)) {
    stop("cannot satisfy: ", paste(chosen$unmet, collapse = "; "), call. = FALSE)
  }
  for (p in intersect(optional, need$name)) {
    with_p <- resolve(need[need$name == p, ], chosen)
    if (length(with_p$unmet)) {
      stamp("skipped (optional; its tests skip): ", p, ": ", paste(with_p$unmet, collapse = "; "))
    } else {
      chosen <- with_p
    }
  }
  todo <- chosen$todo
  from_archive <- chosen$from_archive
  stamp("to install from the repository: ", if (length(todo)) paste(todo, collapse = ", ") else "nothing")
  if (length(from_archive)) stamp("from the archive: ", paste(from_archive, collapse = ", "))

  # A set-up stopped half-way leaves lock directories that make the next
  # install of those packages fail ("failed to lock directory").
  stale <- file.path(lib, paste0("00LOCK-", c(todo, from_archive)))
  stale <- stale[dir.exists(stale)]
  if (length(stale)) {
    stamp("removing stale locks of an interrupted set-up: ", paste(basename(stale), collapse = ", "))
    unlink(stale, recursive = TRUE)
  }

  # The archived packages build in a second process while the others build
  # here (their dependencies come from Debian, so the two sets do not meet).
  jobs <- lapply(from_archive, function(p) {
    tarball <- file.path(tempdir(), basename(archived[[p]]))
    utils::download.file(paste0(sub("/$", "", repos[[1L]]), "/", archived[[p]]), tarball, quiet = TRUE)
    log <- file.path(tempdir(), paste0(p, ".install.log"))
    status <- file.path(tempdir(), paste0(p, ".status"))
    cmd <- sprintf("'%s' CMD INSTALL --library='%s' '%s' > '%s' 2>&1; echo $? > '%s'",
                   file.path(R.home("bin"), "R"), lib, tarball, log, status)
    system2("sh", c("-c", shQuote(cmd)), wait = FALSE)
    list(package = p, log = log, status = status, start = Sys.time())
  })
  if (length(todo)) {
    t0 <- Sys.time()
    utils::install.packages(todo, lib = lib, Ncpus = 2L, quiet = TRUE)
    stamp(sprintf("repository packages installed in %.0f s", as.numeric(difftime(Sys.time(), t0, units = "secs"))))
  }
  for (j in jobs) {
    while (!file.exists(j$status) || !length(readLines(j$status, warn = FALSE))) Sys.sleep(1)
    code <- as.integer(readLines(j$status, warn = FALSE)[[1L]])
    if (code != 0L) {
      cat(readLines(j$log, warn = FALSE), sep = "\n")
      stop("could not install ", j$package, " from the archive", call. = FALSE)
    }
    stamp(sprintf("%s (archive) installed, %.0f s after it started", j$package,
                  as.numeric(difftime(Sys.time(), j$start, units = "secs"))))
  }
}

if (!verify) {
  # From the disk: every bound holds (the loading test is --verify).
  have <- on_disk()
  bad <- need[!mapply(meets, have[need$name], need$op, need$version) & !need$name %in% optional, ]
  if (nrow(bad)) {
    stop("not installed or too old: ",
         paste(sprintf("%s%s (found %s)", bad$name,
                       ifelse(is.na(bad$op), "", sprintf(" %s %s", bad$op, bad$version)),
                       ifelse(is.na(have[bad$name]), "none", have[bad$name])), collapse = ", "),
         call. = FALSE)
  }
  stamp("every required version is on disk")
} else {
  # A new process: load every needed package (a stale namespace cannot
  # answer here) and check the version that loaded.
  failed <- character()
  for (i in seq_len(nrow(need))) {
    p <- need$name[i]
    v <- tryCatch(as.character(getNamespaceVersion(loadNamespace(p))),
                  error = function(e) structure(conditionMessage(e), class = "failed"))
    if (inherits(v, "failed")) {
      if (!p %in% optional) failed <- c(failed, sprintf("%s does not load: %s", p, v))
    } else if (!meets(v, need$op[i], need$version[i])) {
      failed <- c(failed, sprintf("%s %s loaded, %s %s needed", p, v, need$op[i], need$version[i]))
    }
  }
  if (length(failed)) stop(paste(failed, collapse = "\n"), call. = FALSE)
  stamp(sprintf("all %d needed packages load, at the versions needed", nrow(need)))
}
