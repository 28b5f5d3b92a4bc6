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
///
/// At most the pinned size plus one byte is read: a member that inflates past its pinned
/// size (a decompression bomb, or simply another file) is refused with
/// [`DataError::TooLarge`] as soon as the extra byte arrives, so the temporary file never
/// holds more than `file.bytes + 1` bytes.
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
        let mut bounded = Read::take(reader, file.bytes.saturating_add(1));
        io::copy(&mut bounded, &mut writer).map_err(io_err(tmp.path()))?;
        writer.flush().map_err(io_err(tmp.path()))?;
        (hex(&writer.hasher.finalize()), writer.bytes)
    };
    if bytes > file.bytes {
        // `tmp` is removed when dropped.
        return Err(DataError::TooLarge {
            member: file.member.to_string(),
            archive: archive.to_path_buf(),
            pinned: file.bytes,
            read: bytes,
        });
    }
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
/// [`DataError::TooLarge`] (a member longer than its pinned size: reading stops one byte
/// past it, whatever the archive kind), [`DataError::HashMismatch`], [`DataError::Zip`] or
/// [`DataError::Io`].
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that counts the bytes taken from it.
    struct Counting<R> {
        inner: R,
        taken: u64,
    }

    impl<R: Read> Read for Counting<R> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.inner.read(buf)?;
            self.taken += n as u64;
            Ok(n)
        }
    }

    /// A member that inflates to 4 MiB of zeros (a few KiB compressed).
    const INFLATED: u64 = 4 << 20;
    /// Its (wrong) pinned size.
    const PINNED: u64 = 1000;

    fn pin(member: &'static str) -> DataFile {
        DataFile {
            member,
            // Irrelevant: the size check stops the read first.
            sha256: "0000000000000000000000000000000000000000000000000000000000000000",
            bytes: PINNED,
        }
    }

    fn assert_stopped_at_the_pin(err: &DataError, dest: &Path) {
        match err {
            DataError::TooLarge { pinned, read, .. } => {
                assert_eq!((*pinned, *read), (PINNED, PINNED + 1), "{err}");
            }
            other => panic!("expected TooLarge, got {other:?}"),
        }
        let left: Vec<_> = std::fs::read_dir(dest).unwrap().collect();
        assert!(left.is_empty(), "nothing may stay in the cache: {left:?}");
    }

    #[test]
    fn a_stream_longer_than_its_pin_is_read_at_most_one_byte_past_it() {
        let tmp = tempfile::tempdir().unwrap();
        let mut reader = Counting {
            inner: io::repeat(0).take(INFLATED),
            taken: 0,
        };
        let err = write_verified(
            &mut reader,
            &pin("pkg/big.bin"),
            Path::new("pkg.whl"),
            tmp.path(),
        )
        .unwrap_err();
        assert!(reader.taken <= PINNED + 1, "read {} bytes", reader.taken);
        assert_stopped_at_the_pin(&err, tmp.path());
    }

    #[test]
    fn a_decompression_bomb_stops_at_the_pin_in_every_archive_kind() {
        let tmp = tempfile::tempdir().unwrap();
        let zeros = vec![0u8; INFLATED as usize];

        let wheel = tmp.path().join("pkg-1.0-py3-none-any.whl");
        let mut zip = zip::ZipWriter::new(File::create(&wheel).unwrap());
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        zip.start_file("pkg/big.bin", opts).unwrap();
        zip.write_all(&zeros).unwrap();
        zip.finish().unwrap();

        let sdist = tmp.path().join("pkg-1.0.tar.gz");
        let gz = flate2::write::GzEncoder::new(
            File::create(&sdist).unwrap(),
            flate2::Compression::default(),
        );
        let mut tar = tar::Builder::new(gz);
        let mut header = tar::Header::new_gnu();
        header.set_size(INFLATED);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, "pkg-1.0/pkg/big.bin", zeros.as_slice())
            .unwrap();
        tar.into_inner().unwrap().finish().unwrap();

        for (kind, archive) in [("zip", wheel), ("tar.gz", sdist)] {
            // The archives are small: the bomb is in the inflation.
            assert!(std::fs::metadata(&archive).unwrap().len() < INFLATED / 16);
            let dest = tmp.path().join(format!("dest-{kind}"));
            let err = extract_verified(&archive, &[pin("pkg/big.bin")], &dest).unwrap_err();
            assert_stopped_at_the_pin(&err, &dest);
        }
    }
}
