//! The server's certificate and key, read from PEM files and read again when they
//! change: cert-manager renews the Secret mounted in the pod, and the kubelet swaps the
//! files in place, so the server picks up the new pair without a restart. A pair that
//! does not load (a half-written renewal) leaves the one in use in place.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use tokio_rustls::rustls::crypto::CryptoProvider;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::server::{ClientHello, ResolvesServerCert};
use tokio_rustls::rustls::sign::CertifiedKey;
use tokio_rustls::rustls::{self, ServerConfig};

/// The certificate and key in use, and where they come from.
#[derive(Debug)]
pub struct Certificates {
    cert_path: PathBuf,
    key_path: PathBuf,
    provider: Arc<CryptoProvider>,
    current: RwLock<Loaded>,
}

#[derive(Debug)]
struct Loaded {
    key: Arc<CertifiedKey>,
    /// The files' bytes as loaded, to tell a change.
    cert_pem: Vec<u8>,
    key_pem: Vec<u8>,
}

/// Whether a reload changed the pair in use.
#[derive(Debug, PartialEq, Eq)]
pub enum Reloaded {
    /// The files are as they were.
    Unchanged,
    /// The new pair is in use.
    Replaced,
}

impl Certificates {
    /// Reads the pair, or says which file is wrong and how.
    pub fn load(cert_path: &Path, key_path: &Path) -> Result<Certificates, String> {
        // ring rather than aws-lc-rs: no C and CMake toolchain for the release targets
        // (packaging/package.sh cross-builds five). Its provider lacks the
        // post-quantum key exchange, which a webhook reached inside the cluster does
        // without.
        #[allow(deprecated)]
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let (cert_pem, key_pem) = read_pair(cert_path, key_path)?;
        let key = certified(&provider, cert_path, &cert_pem, key_path, &key_pem)?;
        Ok(Certificates {
            cert_path: cert_path.to_path_buf(),
            key_path: key_path.to_path_buf(),
            provider,
            current: RwLock::new(Loaded {
                key,
                cert_pem,
                key_pem,
            }),
        })
    }

    /// Reads the files again and puts a changed pair in use; a pair that does not load
    /// is an error, and the one in use stays.
    pub fn reload(&self) -> Result<Reloaded, String> {
        let (cert_pem, key_pem) = read_pair(&self.cert_path, &self.key_path)?;
        {
            let current = self
                .current
                .read()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if current.cert_pem == cert_pem && current.key_pem == key_pem {
                return Ok(Reloaded::Unchanged);
            }
        }
        let key = certified(
            &self.provider,
            &self.cert_path,
            &cert_pem,
            &self.key_path,
            &key_pem,
        )?;
        let mut current = self
            .current
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *current = Loaded {
            key,
            cert_pem,
            key_pem,
        };
        Ok(Reloaded::Replaced)
    }

    /// The TLS configuration that serves the pair in use: TLS 1.2 and 1.3, HTTP/2 and
    /// HTTP/1.1 offered by ALPN (the API server speaks HTTP/2 to webhooks).
    pub fn server_config(self: &Arc<Self>) -> Result<ServerConfig, String> {
        let mut config = ServerConfig::builder_with_provider(self.provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|error| error.to_string())?
            .with_no_client_auth()
            .with_cert_resolver(self.clone());
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(config)
    }
}

impl ResolvesServerCert for Certificates {
    fn resolve(&self, _: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        let current = self
            .current
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        Some(current.key.clone())
    }
}

fn read_pair(cert_path: &Path, key_path: &Path) -> Result<(Vec<u8>, Vec<u8>), String> {
    let read = |path: &Path| {
        std::fs::read(path).map_err(|error| {
            format!(
                "{}: {}",
                path.display(),
                crate::load::discover::describe_io(&error)
            )
        })
    };
    Ok((read(cert_path)?, read(key_path)?))
}

/// The chain and key as rustls signs with them.
fn certified(
    provider: &CryptoProvider,
    cert_path: &Path,
    cert_pem: &[u8],
    key_path: &Path,
    key_pem: &[u8],
) -> Result<Arc<CertifiedKey>, String> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(cert_pem)
        .collect::<Result<_, _>>()
        .map_err(|error| {
            format!(
                "{}: not a PEM certificate chain ({error})",
                cert_path.display()
            )
        })?;
    if chain.is_empty() {
        return Err(format!("{}: holds no PEM certificate", cert_path.display()));
    }
    let key = PrivateKeyDer::from_pem_slice(key_pem)
        .map_err(|error| format!("{}: not a PEM private key ({error})", key_path.display()))?;
    let signing = provider
        .key_provider
        .load_private_key(key)
        .map_err(|error| format!("{}: {error}", key_path.display()))?;
    let certified = CertifiedKey::new(chain, signing);
    certified.keys_match().map_err(|error| {
        format!(
            "{} and {} are not a pair: {error}",
            cert_path.display(),
            key_path.display()
        )
    })?;
    Ok(Arc::new(certified))
}
