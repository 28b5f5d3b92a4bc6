//! Extraction of pinned files from a package archive, verified before they are written.

use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::*;

/// A writer that hashes what it forwards.
pub(crate) struct HashingWriter<W> {
    inner: W,
    hasher: Sha256,
    bytes: u64,
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Streams `reader` into `<dest_dir>/<basename>` through a temporary file in
/// `dest_dir`, renaming it into place only if its sha256 matches the pin.
pub(crate) fn write_verified(
    reader: &mut dyn Read,
    file: &DataFile,
    archive: &Path,
    dest_dir: &Path,
) -> Result<(PathBuf, u64), DataError> {
    let dest = dest_dir.join(file.basename());
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".{}.", file.basename()))
        .suffix(".part")
        .tempfile_in(dest_dir)
        .map_err(io_err(dest_dir))?;
    let (found, bytes) = {
        let mut writer = HashingWriter {
            inner: io::BufWriter::new(tmp.as_file()),
            hasher: Sha256::new(),
            bytes: 0,
        };
        io::copy(reader, &mut writer).map_err(io_err(tmp.path()))?;
        writer.flush().map_err(io_err(tmp.path()))?;
        (hex(&writer.hasher.finalize()), writer.bytes)
    };
    if found != file.sha256 {
        // `tmp` is removed when dropped.
        return Err(DataError::HashMismatch {
            member: file.member.to_string(),
            archive: archive.to_path_buf(),
            expected: file.sha256.to_string(),
            found,
        });
    }
    tmp.as_file().sync_all().map_err(io_err(tmp.path()))?;
    // Temporary files are created owner-only; a cached data file is ordinary data.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644))
            .map_err(io_err(tmp.path()))?;
    }
    tmp.persist(&dest).map_err(|e| io_err(&dest)(e.error))?;
    Ok((dest, bytes))
}

/// True if the archive entry `entry` is the member `member`: equal, or equal after
/// dropping a leading `./` or the first folder (an sdist's `NAME-VERSION/`).
pub(crate) fn entry_matches(entry: &str, member: &str) -> bool {
    let entry = entry.strip_prefix("./").unwrap_or(entry);
    entry == member
        || entry
            .split_once('/')
            .is_some_and(|(_, rest)| rest == member)
}

pub(crate) enum ArchiveKind {
    Zip,
    TarGz,
}

pub(crate) fn archive_kind(path: &Path) -> Option<ArchiveKind> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    if name.ends_with(".whl") || name.ends_with(".zip") {
        Some(ArchiveKind::Zip)
    } else if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
        Some(ArchiveKind::TarGz)
    } else {
        None
    }
}

/// Extracts `files` from `archive` (a wheel/zip or a `.tar.gz`) into `dest_dir`
/// (created if needed), verifying each against its pinned sha256 first.
///
/// Returns the written paths and bytes, in the order of `files`. Files verified
/// before a failure stay in place (they are correct); a file that fails
/// verification is never written.
///
/// # Errors
/// [`DataError::UnsupportedArchive`], [`DataError::MemberMissing`],
/// [`DataError::HashMismatch`], [`DataError::Zip`] or [`DataError::Io`].
pub fn extract_verified(
    archive: &Path,
    files: &[DataFile],
    dest_dir: &Path,
) -> Result<Vec<(PathBuf, u64)>, DataError> {
    let kind = archive_kind(archive).ok_or_else(|| DataError::UnsupportedArchive {
        path: archive.to_path_buf(),
    })?;
    std::fs::create_dir_all(dest_dir).map_err(io_err(dest_dir))?;
    let mut written: Vec<Option<(PathBuf, u64)>> = vec![None; files.len()];
    let handle = File::open(archive).map_err(io_err(archive))?;
    match kind {
        ArchiveKind::Zip => {
            let zip_err = |source| DataError::Zip {
                path: archive.to_path_buf(),
                source,
            };
            let mut zip = zip::ZipArchive::new(BufReader::new(handle)).map_err(zip_err)?;
            for i in 0..zip.len() {
                let mut entry = zip.by_index(i).map_err(zip_err)?;
                if entry.is_dir() {
                    continue;
                }
                let name = entry.name().map_err(zip_err)?.into_owned();
                for (k, file) in files.iter().enumerate() {
                    if written[k].is_none() && entry_matches(&name, file.member) {
                        written[k] = Some(write_verified(&mut entry, file, archive, dest_dir)?);
                        break;
                    }
                }
            }
        }
        ArchiveKind::TarGz => {
            let gz = flate2::read::GzDecoder::new(BufReader::new(handle));
            let mut tar = tar::Archive::new(gz);
            for entry in tar.entries().map_err(io_err(archive))? {
                let mut entry = entry.map_err(io_err(archive))?;
                if !entry.header().entry_type().is_file() {
                    continue;
                }
                let name = entry
                    .path()
                    .map_err(io_err(archive))?
                    .to_string_lossy()
                    .replace('\\', "/");
                for (k, file) in files.iter().enumerate() {
                    if written[k].is_none() && entry_matches(&name, file.member) {
                        written[k] = Some(write_verified(&mut entry, file, archive, dest_dir)?);
                        break;
                    }
                }
                if written.iter().all(Option::is_some) {
                    break;
                }
            }
        }
    }
    files
        .iter()
        .zip(written)
        .map(|(file, w)| {
            w.ok_or_else(|| DataError::MemberMissing {
                archive: archive.to_path_buf(),
                member: file.member.to_string(),
            })
        })
        .collect()
}
