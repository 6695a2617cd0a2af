//! `:ctx`, `:org` and `:project`: a profile opened (its key may come from a
//! command) and the organizations and projects a key reaches.

use super::*;

impl Runner {
    /// A profile opened on a blocking thread (its key may come from a
    /// command), or the connection the console started with. The profile
    /// keeps the timeout the console was started with.
    pub(super) async fn connect(&self, target: Target) -> Result<Box<Connected>, String> {
        let name = match target {
            Target::Start => return Ok(Box::new(Connected::clone(&self.start))),
            Target::Profile(name) => name,
        };
        let Some(path) = self.config_file.clone() else {
            return Err(format!(
                "cannot open profile {name}: there is no config directory on this machine"
            ));
        };
        let opened = {
            let (name, limits) = (name.clone(), self.client.clone());
            tokio::task::spawn_blocking(move || config::open_profile(&path, &name, &limits)).await
        };
        let opened = match opened {
            Ok(Ok(opened)) => opened,
            Ok(Err(error)) => return Err(format!("cannot open profile {name}: {error:#}")),
            Err(error) => return Err(format!("cannot open profile {name}: {error}")),
        };
        // Before leaving a working screen: does the host answer, and take the key?
        // (Any other answer, a 404 from an older server say, is left to the lists.)
        match opened.client.current_key().await {
            Err(error @ crate::api::Error::Transport { .. }) => {
                return Err(format!("cannot switch to profile {name}: {error}"));
            }
            Err(error) if error.status() == Some(401) => {
                return Err(format!("cannot switch to profile {name}: {error}"));
            }
            _ => {}
        }
        let color = match opened
            .look
            .color
            .as_deref()
            .map(crate::config::colour::profile_color)
        {
            Some(Err(error)) => return Err(format!("cannot open profile {name}: its {error}")),
            Some(Ok(color)) => Some(color),
            None => None,
        };
        Ok(Box::new(Connected {
            context: Context {
                profile: Some(opened.name),
                host: opened.host,
                organization: opened.organization,
                project: opened.project,
                color,
                production: opened.look.production,
                tz: opened.look.tz.clone(),
                ..Context::default()
            },
            client: opened.client,
        }))
    }

    /// The organizations and projects the key reaches, and what `@current`
    /// means where the context says it, all asked at once.
    pub(super) async fn names(&self, connection: Ticket, organization: &str, project: &str) -> Msg {
        let options = crate::api::FetchAll::default();
        let (organization_list, project_list) =
            (List::<Organization>::organizations(), List::<Project>::projects());
        let current_organization = async {
            match organization {
                CURRENT => self.client.organization(CURRENT).await.ok(),
                _ => None,
            }
        };
        let current_project = async {
            match project {
                CURRENT => self.client.project(CURRENT).await.ok(),
                _ => None,
            }
        };
        // The switchers offer the first ones, however many a server says.
        let (organizations, projects, current_organization, current_project) = tokio::join!(
            self.client.first_rows(&organization_list, PICKER_ROWS, &options),
            self.client.first_rows(&project_list, PICKER_ROWS, &options),
            current_organization,
            current_project,
        );
        let cut = organizations.as_ref().is_ok_and(|(_, more)| *more)
            || projects.as_ref().is_ok_and(|(_, more)| *more);
        Msg::Names {
            connection,
            current_organization,
            current_project,
            organizations: organizations.ok().map(|(rows, _)| rows),
            projects: projects.ok().map(|(rows, _)| rows),
            cut,
        }
    }
}
